"""The report types of the commands that print one config and a list of results.

order, bench, padding and precision share one shape, ``{"schema", "config",
"results"}``; doctor's is ``{"schema", "source", "findings"}``. The scheme
reports of compare, inspect and sweep live in ``report.py``. Every key is in
docs/json-contract.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

ORDER_SCHEMA = "posemb.order/1"
BENCH_SCHEMA = "posemb.bench/1"
PADDING_SCHEMA = "posemb.padding/1"
PRECISION_SCHEMA = "posemb.precision/1"
DOCTOR_SCHEMA = "posemb.doctor/1"
SEVERITIES = ("error", "warning", "info")

__all__ = ["BENCH_SCHEMA", "DOCTOR_SCHEMA", "ORDER_SCHEMA", "PADDING_SCHEMA", "PRECISION_SCHEMA", "SEVERITIES",
           "BenchReport", "DoctorReport", "Finding", "Location", "OrderReport", "PaddingReport", "PrecisionReport",
           "ResultsReport"]


@dataclass(frozen=True)
class ResultsReport:
    """One config and a list of results; a result is a dict or has ``to_dict()``."""

    schema: ClassVar[str]
    config: dict
    results: list[Any]

    def to_dict(self) -> dict:
        rows = [row if isinstance(row, dict) else row.to_dict() for row in self.results]
        return {"schema": self.schema, "config": self.config, "results": rows}


class OrderReport(ResultsReport):
    """``posemb order``: one ``{"scheme", "max_abs_diff", ...}`` result per scheme."""

    schema = ORDER_SCHEMA


class BenchReport(ResultsReport):
    """``posemb bench``: one timing result per dim and scheme."""

    schema = BENCH_SCHEMA


@dataclass(frozen=True)
class PaddingReport(ResultsReport):
    """``posemb padding``: one result per scheme and position-id choice; a real model adds its source and shape."""

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


class PrecisionReport(ResultsReport):
    """``posemb precision``: one ``PrecisionResult`` per dtype and recipe."""

    schema = PRECISION_SCHEMA


@dataclass(frozen=True)
class Location:
    """Where a doctor finding points: a file, and the line and column of the config key it is about.

    ``key`` is None where the file holds no key the finding names (a missing key, a GGUF file): then
    line and column are 1.
    """

    path: str
    line: int = 1
    column: int = 1
    key: str | None = None

    def to_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column, "key": self.key}


@dataclass(frozen=True)
class Finding:
    """One thing ``posemb doctor`` found in a model's position setup, and where (once located)."""

    id: str
    severity: str  # error | warning | info
    message: str
    fix: str
    location: Location | None = None

    def to_dict(self) -> dict:
        out: dict = {"id": self.id, "severity": self.severity, "message": self.message, "fix": self.fix}
        if self.location is not None:
            out["location"] = self.location.to_dict()
        return out


@dataclass(frozen=True)
class DoctorReport:
    """``posemb doctor``: where the config came from and what was found."""

    source: dict
    findings: list[Finding]

    @property
    def has_error(self) -> bool:
        return any(finding.severity == "error" for finding in self.findings)

    def to_dict(self) -> dict:
        return {"schema": DOCTOR_SCHEMA, "source": self.source,
                "findings": [finding.to_dict() for finding in self.findings]}
