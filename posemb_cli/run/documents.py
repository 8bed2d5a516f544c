"""What every command's report shares: the ``{"schema", "config", "results"}`` shape, its JSON text, and Jupyter.

order, bench, padding and precision print one config and a list of results
(``ResultsReport``); each command's own report type lives in its folder
(``commands/<name>/report.py``). Every report is ``Shown``: ``to_json()`` is its ``--json``
text, and its ``__rich__`` (defined by each report) is what the command prints, so a report
shows itself in Jupyter and in ``rich.print``. Every key is in docs/json-contract.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.jupyter import JupyterMixin

__all__ = ["ResultsReport", "Shown"]


class Shown(JupyterMixin):
    """A report's JSON text (non-finite floats as null), and its display in Jupyter through its ``__rich__``."""

    __slots__ = ()

    def to_json(self) -> str:
        """The command's ``--json`` document as text (non-finite floats as null)."""
        from posemb_cli.run.report import to_json

        return to_json(self.to_dict())  # type: ignore[attr-defined]


@dataclass(frozen=True)
class ResultsReport(Shown):
    """One config and a list of results; a result is a dict or has ``to_dict()``."""

    schema: ClassVar[str]
    config: dict
    results: list[Any]

    def to_dict(self) -> dict:
        rows = [row if isinstance(row, dict) else row.to_dict() for row in self.results]
        return {"schema": self.schema, "config": self.config, "results": rows}
