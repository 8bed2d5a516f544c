"""`posemb sweep`'s terminal summary: one row of figures per configuration (under --json, each is an inspect line)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SweepSummary"]


@dataclass(frozen=True)
class SweepSummary:
    """The figures of each configuration's inspect report that the sweep's table shows, in order."""

    rows: list[dict]

    def __rich__(self):
        from posemb_cli.render.speed import sweep_table

        return sweep_table(self.rows)
