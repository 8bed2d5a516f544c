"""``--plot FILE.png|FILE.svg``: one matplotlib figure of a run.

Top row: the similarity heatmap of each scheme. Second row: the neighbour
decay curves of every scheme, the decay over the whole table (from the
heatmaps), and the wavelength bands (before and after any scaling). Then, where
they apply, a learned table's principal components and ALiBi's bias by distance.
matplotlib is the optional extra ``plot``; it is imported only here.
"""

from __future__ import annotations

import math
import os
from typing import Any, cast

from posemb_cli.errors import PosembError
from posemb_cli.render.distance_penalty_plot import has_penalty, penalty_axes
from posemb_cli.render.format import sampled_positions
from posemb_cli.render.spectrum_plot import has_spectrum, spectrum_axes
from posemb_cli.run.report import SchemeReport

FORMATS = (".png", ".svg")
INSTALL = "pip install 'posemb[plot]'"
_MAX_HEATMAPS = 4


def check_plot_path(path: str) -> None:
    """Refuse an unsupported extension or a missing matplotlib before any work is done."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise PosembError(f"--plot {path}: unsupported extension {suffix or '(none)'!r}; use .png or .svg")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise PosembError(f"--plot {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise PosembError(f"--plot {path}: is a directory; give a file name ending in .png or .svg")
    if not os.access(folder, os.W_OK):
        raise PosembError(f"--plot {path}: folder {folder} is not writable")
    check_matplotlib()


def check_matplotlib() -> None:
    """Refuse (exit 2) when matplotlib, the optional extra ``plot``, is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PosembError(f"--plot needs matplotlib, which is not installed: {INSTALL}") from None


def _heatmap(result: SchemeReport):
    pictures = result.pictures
    return pictures.get("plot_heatmap", pictures.get("heatmap"))


def _heatmap_axes(axes, result: SchemeReport) -> object | None:
    heatmap = _heatmap(result)
    if heatmap is None:
        axes.set_axis_off()
        if not _cosines_apply(result):  # ALiBi: say why there is no picture
            axes.text(0.5, 0.5, f"{result.scheme}: no heatmap\n(a bias per distance:\nevery cosine is 1)",
                      ha="center", va="center", transform=axes.transAxes, fontsize=8)
        return None
    rows = int(heatmap.edges[-1])
    image = axes.imshow(heatmap.cells, cmap="RdBu_r", vmin=-1.0, vmax=1.0, origin="upper",
                        extent=(0, rows, rows, 0), interpolation="nearest")
    over = sampled_positions(result.coverage)
    axes.set_title(f"{result.scheme}: cos(p, q)" + (f"\n{over}" if over else ""), fontsize=9)
    axes.locator_params(nbins=4)
    axes.set_xlabel("position q")
    axes.set_ylabel("position p")
    return image


def _cosines_apply(result: SchemeReport) -> bool:
    """Whether the scheme's cosines between positions mean something (not for a bias per distance: ALiBi)."""
    return result.signal is None or "neighbour_similarity" not in (result.signal.left_out or {})


def _decay_axes(axes, results: list[SchemeReport]) -> None:
    for result in filter(_cosines_apply, results):
        offsets = [row["offset"] for row in (result.neighbour_similarity or [])]
        means = [row["mean"] for row in (result.neighbour_similarity or [])]
        axes.plot(offsets, means, marker="o", markersize=3, label=result.scheme)
    _similarity_frame(axes, "neighbour similarity", "offset k", "mean cos(row p, row p+k)")


def _profile_axes(axes, results: list[SchemeReport]) -> None:
    for result in results:
        heatmap = _heatmap(result)
        if heatmap is not None:
            distances, means = heatmap.distance_profile()
            axes.plot(distances, means, label=result.scheme)
    _similarity_frame(axes, "similarity over the whole table", "distance (positions)", "block mean cos")


def _similarity_frame(axes, title: str, xlabel: str, ylabel: str) -> None:
    """A zero line, the title, axis labels and the legend of a plot of cosines, one curve per scheme (or why
    there is none: ALiBi's cosines are all 1, its penalty is drawn below)."""
    axes.axhline(0.0, color="grey", linewidth=0.5)
    axes.set_title(title, fontsize=9)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    if axes.get_legend_handles_labels()[1]:
        axes.legend(fontsize=7)
    else:
        axes.text(0.5, 0.5, "no cosines to draw\n(a bias per distance: see its penalty)", ha="center",
                  va="center", transform=axes.transAxes, fontsize=8)


def _bands_axes(axes, results: list[SchemeReport]) -> None:
    drawn = False
    for result in results:
        bands = result.bands or []
        if not bands:
            continue
        pairs = [band.pair for band in bands]
        axes.plot(pairs, [band.wavelength for band in bands], label=f"{result.scheme}")
        if any(band.inv_freq_unscaled is not None for band in bands):
            before = [2 * math.pi / (band.inv_freq_unscaled or band.inv_freq) for band in bands]
            axes.plot(pairs, before, linestyle="--",
                      label=f"{result.scheme} before scaling")
        drawn = True
    axes.set_title("wavelength bands", fontsize=9)
    if not drawn:
        axes.text(0.5, 0.5, "no frequency bands\n(learned or table schemes)", ha="center", va="center",
                  transform=axes.transAxes, fontsize=8)
        return
    axes.set_yscale("log")
    axes.set_xlabel("feature pair")
    axes.set_ylabel("wavelength (positions)")
    axes.legend(fontsize=7)


def plot_figure(results: list[SchemeReport], title: str):
    """The heatmaps, decay curves and bands of ``results`` as one matplotlib ``Figure`` (no pyplot state)."""
    from matplotlib.figure import Figure

    shown = results[:_MAX_HEATMAPS]
    columns = len(shown) + 1  # the heatmaps, then the bands
    half = columns // 2
    spectrum = has_spectrum(results)  # learned or checkpoint tables: a row for their components
    penalty = has_penalty(results)  # alibi: a row for its bias by distance
    rows = 2 + spectrum + penalty
    figure = Figure(figsize=(4.4 * columns, 4.0 * rows), layout="constrained")
    grid = figure.add_gridspec(rows, columns)
    image = None
    for index, result in enumerate(shown):
        image = _heatmap_axes(figure.add_subplot(grid[0, index]), result) or image
    if image is not None:
        figure.colorbar(cast(Any, image), ax=figure.axes[: len(shown)], shrink=0.8, label="cos")
    _bands_axes(figure.add_subplot(grid[0, columns - 1]), results)
    _decay_axes(figure.add_subplot(grid[1, :half]), results)
    _profile_axes(figure.add_subplot(grid[1, half:]), results)
    if spectrum:
        spectrum_axes(figure.add_subplot(grid[2, :]), results)
    if penalty:
        penalty_axes(figure.add_subplot(grid[rows - 1, :]), results)
    figure.suptitle(title)
    return figure


def save_figure(figure, path: str) -> None:
    """Write ``figure`` to ``path`` (.png, or .svg without a date so the same run gives the same bytes)."""
    try:
        figure.savefig(path, metadata={"Date": None} if path.lower().endswith(".svg") else None)
    except OSError as exc:
        raise PosembError(f"--plot {path}: cannot write the figure ({exc})") from None


def write_plot(path: str, results: list[SchemeReport], title: str) -> None:
    """Draw the heatmaps, decay curves and bands of ``results`` into ``path`` (.png or .svg)."""
    save_figure(plot_figure(results, title), path)
