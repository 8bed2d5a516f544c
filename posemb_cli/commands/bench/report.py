"""`posemb bench`'s report: one timing result per dim and scheme."""

from __future__ import annotations

from posemb_cli.run.documents import ResultsReport

BENCH_SCHEMA = "posemb.bench/1"

__all__ = ["BENCH_SCHEMA", "BenchReport"]


class BenchReport(ResultsReport):
    """``posemb bench``: the composer's forward against a same-size copy, per dim and scheme."""

    schema = BENCH_SCHEMA

    def __rich__(self):
        from posemb_cli.render.speed import bench_table

        return bench_table(self)
