"""The reports the Python API returns: each command's report, its JSON document and its terminal tables.

``to_dict()`` is exactly the command's ``--json`` document and ``to_json()`` its text;
``__rich__`` is exactly what the command prints in a terminal, so a report shows itself in
Jupyter (``_repr_mimebundle_``) and in ``rich.print``. ``plot()`` draws the figure that
``--plot`` writes (heatmaps, decay, bands, a learned table's spectrum) as a matplotlib
``Figure``; matplotlib is the optional extra ``plot``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from rich.jupyter import JupyterMixin

from posemb_cli.commands.extend import report as extend_report
from posemb_cli.commands.heads import report as heads_report
from posemb_cli.run import documents, report

__all__ = ["CompareReport", "DoctorReport", "ExtendReport", "HeadsReport", "InspectReport", "OrderReport",
           "PaddingReport", "PrecisionReport"]

_Report = TypeVar("_Report")


def _of(cls: type[_Report], base: Any) -> _Report:
    """``base`` (a run report) as an instance of its public subclass ``cls``, sharing every field."""
    return cls(**{field.name: getattr(base, field.name) for field in dataclasses.fields(base)})


class _Shown(JupyterMixin):
    """JSON text, and the figure of ``--plot``, for a report with ``to_dict`` and scheme results."""

    __slots__ = ()

    def to_json(self) -> str:
        """The command's ``--json`` document as text (non-finite floats as null)."""
        return report.to_json(self.to_dict())  # type: ignore[attr-defined]


class _Plotted(_Shown):
    __slots__ = ()

    def _results(self) -> list[report.SchemeReport]:
        raise NotImplementedError

    def plot(self):
        """The figure ``--plot`` writes, as a matplotlib ``Figure`` (heatmaps when the run drew them)."""
        from posemb_cli.render.plot import check_matplotlib, plot_figure

        check_matplotlib()
        return plot_figure(self._results(), self._title())

    def _title(self) -> str:
        return "posemb " + ", ".join(result.scheme for result in self._results())


@dataclasses.dataclass(frozen=True)
class InspectReport(report.InspectReport, _Plotted):
    """``posemb inspect``: one scheme, or a real model, in depth."""

    def _results(self) -> list[report.SchemeReport]:
        return [self.result]

    def __rich__(self):
        from posemb_cli.render.documents import render_inspect

        return render_inspect(self)


@dataclasses.dataclass(frozen=True)
class CompareReport(report.CompareReport, _Plotted):
    """``posemb compare``: schemes side by side on one batch."""

    def _results(self) -> list[report.SchemeReport]:
        return self.columns()

    def __rich__(self):
        from posemb_cli.render.documents import render_compare

        return render_compare(self)


@dataclasses.dataclass(frozen=True)
class OrderReport(documents.OrderReport, _Shown):
    """``posemb order``: attention on a batch and on its permutation, per scheme."""

    def __rich__(self):
        from posemb_cli.commands.order.render import render_order

        return render_order(self)


@dataclasses.dataclass(frozen=True)
class PaddingReport(documents.PaddingReport, _Shown):
    """``posemb padding``: attention on a batch and on its left-padded copy, per scheme and position ids."""

    def __rich__(self):
        from posemb_cli.commands.padding.render import render_padding

        return render_padding(self)


@dataclasses.dataclass(frozen=True)
class PrecisionReport(documents.PrecisionReport, _Shown):
    """``posemb precision``: a frequency signal held in each dtype against float64."""

    def __rich__(self):
        from posemb_cli.commands.precision.render import render_precision

        return render_precision(self)


@dataclasses.dataclass(frozen=True)
class DoctorReport(documents.DoctorReport, _Shown):
    """``posemb doctor``: the findings about a model's position setup."""

    def __rich__(self):
        from posemb_cli.commands.doctor.render import render_doctor

        return render_doctor(self)


@dataclasses.dataclass(frozen=True)
class HeadsReport(heads_report.HeadsReport, _Shown):
    """``posemb heads``: which RoPE frequencies each trained head's query and key weights use.

    ``pictures``: whether the terminal form draws its heatmap and kernels (the CLI's ``--no-plot``).
    """

    pictures: bool = True

    def __rich__(self):
        from posemb_cli.commands.heads.render import render_heads

        return render_heads(self, pictures=self.pictures)

    def plot(self):
        """The figure ``--plot`` writes: the pair-share heatmap, the shares per set, the labels, the kernels."""
        from posemb_cli.commands.heads.plot import heads_figure
        from posemb_cli.render.plot import check_matplotlib

        check_matplotlib()
        return heads_figure(self)


@dataclasses.dataclass(frozen=True)
class ExtendReport(extend_report.ExtendReport, _Shown):
    """``posemb extend``: candidate RoPE scalings for a model at a target length, ranked, and the block to paste.

    With ``text=`` or ``ids=``, ``measurement`` holds each candidate measured on the model (``runtime.MeasuredRun``:
    ``measurement.measured("yarn").losses`` are its per-position losses) beside the predicted ranking.
    ``pictures``: whether the terminal form draws the pair strips and loss curves (the CLI's ``--no-plot``).
    """

    pictures: bool = True

    def __rich__(self):
        from posemb_cli.commands.extend.render import render_extend

        return render_extend(self, pictures=self.pictures)

    def plot(self):
        """The figure ``--plot`` writes: per extended set, each candidate's compression per pair and class shares;
        measured, the loss curves."""
        from posemb_cli.commands.extend.plot import extend_figure
        from posemb_cli.render.plot import check_matplotlib

        check_matplotlib()
        return extend_figure(self)


def public(base: Any) -> Any:
    """A run report as its public type (the type of the same name in this module)."""
    for cls in (InspectReport, CompareReport, OrderReport, PaddingReport, PrecisionReport, DoctorReport, HeadsReport,
                ExtendReport):
        if type(base) in cls.__mro__[1:2]:
            return _of(cls, base)
    raise TypeError(f"no public report type for {type(base).__name__}")
