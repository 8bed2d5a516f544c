"""`posemb precision`'s report: one ``PrecisionResult`` per dtype and recipe."""

from __future__ import annotations

import dataclasses

from posemb_cli.run.documents import ResultsReport

PRECISION_SCHEMA = "posemb.precision/1"

__all__ = ["PRECISION_SCHEMA", "PrecisionReport"]


class PrecisionReport(ResultsReport):
    """``posemb precision``: a frequency signal held in each dtype against float64."""

    schema = PRECISION_SCHEMA

    def with_resolved(self, resolved: dict) -> PrecisionReport:
        """The report whose config's source says how MODEL was resolved."""
        source = {**self.config.get("source", {}), "resolved": resolved}
        return dataclasses.replace(self, config={**self.config, "source": source})
