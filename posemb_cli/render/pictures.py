"""Terminal pictures with Rich: the similarity heatmap and small decay curves; computes nothing new.

With colour and Unicode, each character draws two heatmap cells with the
upper half block ▀ (foreground the upper cell, background the lower), so a cell
is about square; the palette diverges from grey at 0 to red at +1 and blue at
-1. Without colour or Unicode each cell is two characters from a ramp of
density characters, so the picture reads in plain text too.
"""

from __future__ import annotations

import math

import numpy as np
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

from posemb_cli.measures.heatmap import Heatmap
from posemb_cli.render.format import sampled_positions
from posemb_cli.run.report import SchemeReport

RAMP = " .,:-=+*#%@"  # cos -1 .. 0 (=) .. +1
_SPARKS = " ▁▂▃▄▅▆▇█"  # nine levels, so that 0 of [-1, 1] is the middle one
_COLD, _MID, _HOT = (59, 76, 192), (221, 221, 221), (180, 4, 38)


PICTURE_LINES = 9  # lines of the pictures besides the heatmap's body: titles, legend, decay curves


def heatmap_cells_for_screen(width: int, height: int, rows: int, *, half_blocks: bool, full: bool = False) -> int:
    """Cells per side of a heatmap that fits the terminal: its width, and (unless ``full``) its height.

    Half blocks draw two cells per character (upper and lower), one character wide, so a cell is about
    square; the ASCII ramp draws one cell as two characters on one line.
    """
    label = len(f"{rows:,}") + 2
    across = (width - label) if half_blocks else (width - label) // 2
    down = max(height - PICTURE_LINES, 4) * (2 if half_blocks else 1)
    return max(1, min(rows, across, across if full else down))


def _colour(value: float) -> str:
    """Diverging palette centred on 0 (grey), +1 the deepest red, -1 the deepest blue."""
    end = _HOT if value >= 0 else _COLD
    t = min(abs(value), 1.0)
    r, g, b = (round(m + (e - m) * t) for m, e in zip(_MID, end, strict=False))
    return f"rgb({r},{g},{b})"


def _glyph(value: float) -> str:
    if not math.isfinite(value):
        return "  "
    index = round((min(max(value, -1.0), 1.0) + 1.0) / 2.0 * (len(RAMP) - 1))
    return RAMP[index] * 2


class HeatmapPicture:
    """The (n, n) block means: Unicode half blocks in true colour where the console has colour and
    Unicode (▀, foreground the upper cell, background the lower), else the ASCII density ramp."""

    def __init__(self, heatmap: Heatmap, scheme: str, over: str | None = None) -> None:
        self.heatmap, self.scheme, self.over = heatmap, scheme, over  # over: "over N sampled positions of M"

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        heatmap, n = self.heatmap, self.heatmap.size
        rows = int(heatmap.edges[-1])
        if not np.isfinite(heatmap.cells).any():
            yield Text(f"Similarity heatmap, {self.scheme}: nothing to draw, every row of the position signal "
                       "is zero (no direction, no cosine)", style="bold")
            return
        yield Text(f"Similarity heatmap, {self.scheme}: block means of cos(p,q), "
                   f"{n}×{n} blocks of ~{rows / n:.4g} positions" + (f", {self.over}" if self.over else ""),
                   style="bold")
        colour = console.color_system is not None and not console.no_color and not options.ascii_only
        yield from (self._half_blocks(rows) if colour else self._ramp(rows))

    def _half_blocks(self, rows: int):
        cells, n = self.heatmap.cells, self.heatmap.size
        width = len(f"{rows:,}")
        for i in range(0, n, 2):
            line = Text()
            line.append(f"{int(self.heatmap.edges[i]):>{width},} ", style="dim")
            for j in range(n):
                upper = float(cells[i, j])
                lower = float(cells[i + 1, j]) if i + 1 < n else math.nan
                fg = _colour(upper) if math.isfinite(upper) else "default"
                bg = _colour(lower) if math.isfinite(lower) else "default"
                line.append("▀", style=f"{fg} on {bg}")
            yield line
        legend = Text()
        legend.append(" " * (width + 1) + "-1 ", style="dim")
        for index in range(21):
            legend.append("█", style=_colour(-1.0 + index / 10))
        legend.append(f" +1    q from 0 to {rows - 1:,} left to right", style="dim")
        yield legend

    def _ramp(self, rows: int):
        cells, n = self.heatmap.cells, self.heatmap.size
        width = len(f"{rows:,}")
        for i in range(n):
            line = Text()
            line.append(f"{int(self.heatmap.edges[i]):>{width},} ", style="dim")
            for j in range(n):
                value = float(cells[i, j])
                line.append(_glyph(value), style=_colour(value) if math.isfinite(value) else "")
            yield line
        legend = Text()
        legend.append(" " * (width + 1) + "-1 ", style="dim")
        for index, char in enumerate(RAMP):
            legend.append(char * 2, style=_colour(-1.0 + 2.0 * index / (len(RAMP) - 1)))
        legend.append(f" +1    q from 0 to {rows - 1:,} left to right", style="dim")
        yield legend


def heatmap_picture(heatmap: Heatmap, scheme: str, over: str | None = None) -> HeatmapPicture:
    """The heatmap as a renderable that picks half blocks or the ASCII ramp for the console it meets."""
    return HeatmapPicture(heatmap, scheme, over)


def sparkline(values: list[float], low: float = -1.0, high: float = 1.0) -> str:
    """One character per value, scaled from ``low`` (blank) to ``high`` (full); a dot where a value is missing."""
    out = []
    for value in values:
        if value is None or not math.isfinite(value):
            out.append("·")
            continue
        t = (min(max(value, low), high) - low) / (high - low) if high > low else 0.5
        out.append(_SPARKS[round(t * (len(_SPARKS) - 1))])
    return "".join(out)


def _curve_line(label: str, values: list[float], note: str, **scale) -> Text:
    line = Text(f"  {label:<18} ")
    line.append(sparkline(values, **scale), style="cyan")
    line.append(f"  {note}", style="dim")
    return line


def _cos(value) -> str:
    return f"{value:.3f}" if value is not None and math.isfinite(value) else "n/a"


def decay_curves(result: SchemeReport) -> Group:
    """Mean cos(row p, row p + k) by offset, and over the whole table from the heatmap's diagonals."""
    means = [row["mean"] for row in (result.neighbour_similarity or [])]
    first, last = means[0], means[-1]
    lines = [Text("Decay of similarity with distance (bars from -1 to +1)", style="bold"),
             _curve_line(f"k=1..{len(means)}", means, f"{_cos(first)} at k=1 → {_cos(last)} at k={len(means)}")]
    heatmap = result.pictures.get("heatmap")
    if heatmap is not None:
        distances, profile = heatmap.distance_profile()
        step = distances[1] if len(distances) > 1 else 0
        lines.append(_curve_line(f"distance 0..{int(heatmap.edges[-1]) - 1}", profile.tolist(),
                                 f"a bar per {step:.4g} positions"))
    decay = None if result.signal is None else result.signal.long_term_decay
    if decay:
        bounds = [point.bound for point in decay]
        finite = [b for b in bounds if isinstance(b, (int, float)) and math.isfinite(b)]
        if finite:
            lines.append(_curve_line("RoFormer bound", bounds,
                                     f"distance {decay[0].distance}..{decay[-1].distance}",
                                     low=min(0.0, min(finite)), high=max(finite)))
    return Group(*lines)


def pictures(result: SchemeReport) -> list:
    """Everything to draw for one scheme: the heatmap (when measured) and the decay curves."""
    parts: list = []
    heatmap = result.pictures.get("heatmap")
    if heatmap is not None:
        parts.append(heatmap_picture(heatmap, result.scheme, sampled_positions(result.coverage)))
    parts.append(decay_curves(result))
    return parts
