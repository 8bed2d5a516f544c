"""`posemb inspect`'s report: one scheme, or a real model, in depth (``posemb.inspect/1``)."""

from __future__ import annotations

import dataclasses

from posemb_cli.run import report
from posemb_cli.run.documents import Shown

__all__ = ["InspectReport"]


@dataclasses.dataclass(frozen=True)
class InspectReport(report.InspectReport, Shown):
    """``posemb inspect``: one scheme, or a real model, in depth; ``plot()`` draws the figure ``--plot`` writes."""

    @classmethod
    def of(cls, base: report.InspectReport) -> InspectReport:
        """The engine's report (``run.analysis``, ``run.models``) as this command's, sharing every field."""
        return base if isinstance(base, cls) else cls(config=base.config, result=base.result)

    def results(self) -> list[report.SchemeReport]:
        return [self.result]

    def __rich__(self):
        from posemb_cli.render.documents import render_inspect

        return render_inspect(self)

    def plot(self):
        """The figure ``--plot`` writes, as a matplotlib ``Figure`` (heatmaps when the run drew them)."""
        from posemb_cli.render.plot import check_matplotlib, plot_figure

        check_matplotlib()
        return plot_figure(self.results(), "posemb " + self.result.scheme)
