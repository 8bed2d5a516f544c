"""`posemb doctor`'s report: where the model came from, and each finding with the place it points at."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from posemb_cli.run.documents import Shown

DOCTOR_SCHEMA = "posemb.doctor/1"
SEVERITIES = ("error", "warning", "info")

__all__ = ["DOCTOR_SCHEMA", "SEVERITIES", "DoctorReport", "Finding", "Location"]


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
    """One thing ``posemb doctor`` found in a model's position setup, and where (once located).

    Attributes:
        key: the config key the finding is about, labelled as the reading labels it (``rope_scaling.factor``,
            ``text_config.rope_theta``), set by the rule that found it; None where it is about no key. The
            location points at it, or at the object it belongs in where the file lacks it.
    """

    id: str
    severity: str  # error | warning | info
    message: str
    fix: str
    location: Location | None = None
    key: str | None = None

    def to_dict(self) -> dict:
        out: dict = {"id": self.id, "severity": self.severity, "message": self.message, "fix": self.fix}
        if self.location is not None:
            out["location"] = self.location.to_dict()
        return out


@dataclass(frozen=True)
class DoctorReport(Shown):
    """``posemb doctor``: the findings about a model's position setup."""

    source: dict
    findings: list[Finding]

    @property
    def has_error(self) -> bool:
        return any(finding.severity == "error" for finding in self.findings)

    def to_dict(self) -> dict:
        return {"schema": DOCTOR_SCHEMA, "source": self.source,
                "findings": [finding.to_dict() for finding in self.findings]}

    def with_resolved(self, resolved: dict) -> DoctorReport:
        """The report whose source says how MODEL was resolved."""
        return dataclasses.replace(self, source={**self.source, "resolved": resolved})
