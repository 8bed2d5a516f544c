"""Which heatmaps a run should accumulate, sized for the console that will show them.

The signal pass accumulates the heatmaps from the blocks it reads anyway (``measures.heatmap``);
this module only says how many cells each should have (none for a bias per distance, ALiBi, whose
cosines between positions are all 1): the terminal's half-block picture
sized to the console (two cells per character where it has colour and Unicode, one cell per
two characters otherwise; one screen high unless ``full``), and the figure's.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console

from posemb_cli.render.pictures import heatmap_cells_for_screen

PLOT_CELLS = 128

__all__ = ["PLOT_CELLS", "picture_observer"]


def picture_observer(console: Console, *, terminal: bool, plot: bool, full: bool = False) -> Callable:
    """``observe(name, position) -> {"heatmap": cells, "plot_heatmap": cells}`` for ``run_schemes``."""
    width, height = console.size
    half_blocks = console.color_system is not None and not console.no_color and console.encoding.startswith("utf")

    def observe(name: str, position) -> dict[str, int]:
        from posemb_cli.core.schemes.protocols import BiasScheme  # torch: only once a scheme is built

        rows = int(position.max_ctx)
        wanted: dict[str, int] = {}
        if isinstance(position, BiasScheme):  # a bias per distance: every cosine between positions is 1
            return wanted
        if terminal:
            wanted["heatmap"] = heatmap_cells_for_screen(width, height, rows, half_blocks=half_blocks, full=full)
        if plot:
            wanted["plot_heatmap"] = PLOT_CELLS
        return wanted

    return observe
