"""`posemb compare`'s report: schemes, or real models under scalings, side by side (``posemb.compare/1``)."""

from __future__ import annotations

import dataclasses

from posemb_cli.run import report
from posemb_cli.run.documents import Shown

__all__ = ["CompareReport"]


@dataclasses.dataclass(frozen=True)
class CompareReport(report.CompareReport, Shown):
    """``posemb compare``: schemes side by side on one batch; ``plot()`` draws the figure ``--plot`` writes."""

    @classmethod
    def of(cls, base: report.CompareReport) -> CompareReport:
        """The engine's report (``run.analysis``, ``run.models``) as this command's, sharing every field."""
        if isinstance(base, cls):
            return base
        return cls(config=base.config, results=base.results, column_keys=base.column_keys)

    def __rich__(self):
        from posemb_cli.render.documents import render_compare

        return render_compare(self)

    def plot(self):
        """The figure ``--plot`` writes, as a matplotlib ``Figure`` (heatmaps when the run drew them)."""
        from posemb_cli.render.plot import check_matplotlib, plot_figure

        check_matplotlib()
        columns = self.columns()
        return plot_figure(columns, "posemb " + ", ".join(result.scheme for result in columns))
