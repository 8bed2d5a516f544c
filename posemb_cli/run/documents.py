"""What every command's report shares: the ``{"schema", "config", "results"}`` shape, its JSON text, and Jupyter.

order, bench, padding and precision print one config and a list of results
(``ResultsReport``); each command's own report type lives in its folder
(``commands/<name>/report.py``). Every report is ``Shown``: ``to_json()`` is its ``--json``
text, and its ``__rich__`` is what the command prints, so a report shows itself in Jupyter
and in ``rich.print``. Every key is in docs/json-contract.md.

A report knows nothing of its renderer: each renderer says which report it shows
(``@shows(OrderReport)``) and each figure which report it draws (``@draws(HeadsReport)``),
and the layers above that load them (the CLI command, ``posemb_cli.reports`` for the Python
API) make ``__rich__`` and ``plot()`` find them. So render imports report, never the other
way (no cycle). A report whose renderer was never loaded shows its JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from rich.jupyter import JupyterMixin

__all__ = ["ResultsReport", "Shown", "draws", "shows"]

_VIEWS: dict[type, Callable[[Any], Any]] = {}
_FIGURES: dict[type, Callable[[Any], Any]] = {}
View = TypeVar("View", bound=Callable[..., Any])


def shows(report: type) -> Callable[[View], View]:
    """Register the decorated function as what ``report`` instances show (their ``__rich__``)."""
    def register(function: View) -> View:
        _VIEWS[report] = function
        return function

    return register


def draws(report: type) -> Callable[[View], View]:
    """Register the decorated function as the figure ``report.plot()`` returns."""
    def register(function: View) -> View:
        _FIGURES[report] = function
        return function

    return register


class Shown(JupyterMixin):
    """A report's JSON text (non-finite floats as null), and its display in Jupyter through its ``__rich__``."""

    __slots__ = ()

    def __rich__(self):
        view = _VIEWS.get(type(self))
        if view is None:  # no renderer loaded (a report built below the API): its document
            from rich.text import Text

            return Text(self.to_json())
        return view(self)

    def plot(self):
        """The figure ``--plot`` writes, as a matplotlib ``Figure``."""
        figure = _FIGURES.get(type(self))
        if figure is None:
            raise TypeError(f"{type(self).__name__} draws no figure here: inspect, compare, heads and extend reports "
                            "do, once their figure is loaded (posemb_cli.reports loads them)")
        return figure(self)

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
