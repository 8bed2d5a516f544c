"""Flags that inspect and compare share for real models and pictures: checks and small glue.

Parsing only: the checkpoint is read by ``checkpoint.py``, the heatmap is
computed by ``heatmap.py`` within the signal pass, the figure drawn by ``plot.py``.
"""

from __future__ import annotations

from collections.abc import Callable

PLOT_CELLS = 128


def check_plot_flag(plot: str | None) -> None:
    if plot is not None:
        from posemb_cli.render.plot import check_plot_path

        check_plot_path(plot)


def picture_observer(*, terminal: bool, plot: str | None, full: bool = False) -> Callable | None:
    """A callback for ``run_schemes`` naming each scheme's heatmaps (name -> cells per side), or None when no
    picture is wanted; the signal pass accumulates them from the blocks it reads anyway.

    The terminal heatmap is sized to stdout's width and (unless ``full``) its height, with two cells per
    character where the console has colour and Unicode (half blocks), one cell per two characters otherwise.
    """
    if not terminal and plot is None:
        return None
    from posemb_cli.cli.output import stdout_console
    from posemb_cli.render.pictures import heatmap_cells_for_screen

    console = stdout_console()
    width, height = console.size
    half_blocks = console.color_system is not None and not console.no_color and console.encoding.startswith("utf")

    def observe(name: str, position) -> dict[str, int]:
        rows = int(position.max_ctx)
        wanted = {}
        if terminal:
            wanted["heatmap"] = heatmap_cells_for_screen(width, height, rows, half_blocks=half_blocks, full=full)
        if plot is not None:
            wanted["plot_heatmap"] = PLOT_CELLS
        return wanted

    return observe


def write_requested_plot(plot: str | None, report, title: str) -> None:
    if plot is None:
        return
    from posemb_cli.render.plot import write_plot
    from posemb_cli.run.report import CompareReport

    results = report.results if isinstance(report, CompareReport) else [report.result]
    sources = [result.source.source() for result in results if result.source is not None]
    if sources:
        title += "  (" + ", ".join(str(source.get("checkpoint", source.get("config"))) for source in sources) + ")"
    write_plot(plot, results, title)


def note(line: str) -> None:
    """What a run says about a real model before it runs, on stderr."""
    from posemb_cli.cli.output import stderr_console

    stderr_console().print(line, markup=False, highlight=False, soft_wrap=True)
