"""Flags that the commands reading real models and drawing pictures share: checks and small glue.

Parsing only: the checkpoint is read by ``checkpoint.py``, the heatmap is
computed by ``heatmap.py`` within the signal pass, the figure drawn by ``plot.py``.
"""

from __future__ import annotations

from collections.abc import Callable


def check_plot_flag(plot: str | None) -> None:
    if plot is not None:
        from posemb_cli.render.plot import check_plot_path

        check_plot_path(plot)


def picture_observer(*, terminal: bool, plot: str | None, full: bool = False) -> Callable | None:
    """The heatmaps the run accumulates, sized for stdout (``render.observer``), or None when none is wanted."""
    if not terminal and plot is None:
        return None
    from posemb_cli.cli.output import stdout_console
    from posemb_cli.render.observer import picture_observer as observer

    return observer(stdout_console(), terminal=terminal, plot=plot is not None, full=full)


def write_requested_plot(plot: str | None, report, title: str) -> None:
    if plot is None:
        return
    from posemb_cli.render.plot import write_plot
    from posemb_cli.run.report import CompareReport

    results = report.columns() if isinstance(report, CompareReport) else [report.result]
    sources = [result.source.source() for result in results if result.source is not None]
    if sources:
        files = dict.fromkeys(str(source.get("checkpoint", source.get("config"))) for source in sources)
        title += "  (" + ", ".join(files) + ")"  # each file once: a model's sets and scalings share it
    write_plot(plot, results, title)


def note(line: str) -> None:
    """What a run says about a real model before it runs, on stderr."""
    from posemb_cli.cli.output import stderr_console

    stderr_console().print(line, markup=False, highlight=False, soft_wrap=True)
