"""`posemb padding`'s report: one result per scheme and position-id choice; a real model adds its source and shape."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from posemb_cli.run.documents import ResultsReport

PADDING_SCHEMA = "posemb.padding/1"

__all__ = ["PADDING_SCHEMA", "PaddingReport"]


@dataclass(frozen=True)
class PaddingReport(ResultsReport):
    """``posemb padding``: attention on a batch and on its left-padded copy, per scheme and position ids."""

    schema = PADDING_SCHEMA
    source: dict | None = None
    model: dict | None = None

    def to_dict(self) -> dict:
        out = super().to_dict()
        if self.source is not None:
            out["source"] = self.source
        if self.model is not None:
            out["model"] = self.model
        return out

    def with_resolved(self, resolved: dict) -> PaddingReport:
        """The report whose source says how MODEL was resolved."""
        return dataclasses.replace(self, source={**self.source, "resolved": resolved})  # type: ignore[dict-item]
