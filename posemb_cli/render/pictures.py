"""Terminal pictures with Rich: the similarity heatmap and small decay curves; computes nothing new.

Each heatmap cell is two characters wide (a terminal cell is about twice as
tall as it is wide), drawn from a ramp of density characters so the picture
reads without colour too; with colour, red is +1, white 0 and blue -1.
"""

from __future__ import annotations

import math

import numpy as np
from rich.console import Group
from rich.text import Text

from posemb_cli.measures.heatmap import Heatmap
from posemb_cli.run.report import SchemeReport

RAMP = " .,:-=+*#%@"  # cos -1 .. 0 (=) .. +1
_SPARKS = " ▁▂▃▄▅▆▇█"  # nine levels, so that 0 of [-1, 1] is the middle one
_COLD, _MID, _HOT = (59, 76, 192), (221, 221, 221), (180, 4, 38)


def heatmap_cells_for_width(width: int, rows: int, *, most: int = 32) -> int:
    """Cells per side that fit a terminal ``width`` (two characters a cell, a label column)."""
    return max(1, min(rows, most, (width - 10) // 2))


def _colour(value: float) -> str:
    end = _HOT if value >= 0 else _COLD
    t = min(abs(value), 1.0)
    r, g, b = (round(m + (e - m) * t) for m, e in zip(_MID, end, strict=False))
    return f"rgb({r},{g},{b})"


def _glyph(value: float) -> str:
    if not math.isfinite(value):
        return "  "
    index = round((min(max(value, -1.0), 1.0) + 1.0) / 2.0 * (len(RAMP) - 1))
    return RAMP[index] * 2


def heatmap_picture(heatmap: Heatmap, scheme: str) -> Group:
    """The (n, n) block means as text: row labels are the first position of each block."""
    n = heatmap.size
    rows = int(heatmap.edges[-1])
    if not np.isfinite(heatmap.cells).any():
        return Group(Text(f"Similarity heatmap, {scheme}: nothing to draw, every row of the position signal "
                          "is zero (no direction, no cosine)", style="bold"))
    title = Text(f"Similarity heatmap, {scheme}: block means of cos(row p, row q), "
                 f"{n}×{n} blocks of ~{rows / n:.4g} positions", style="bold")
    lines = [title]
    label_width = len(str(rows))
    for i in range(n):
        line = Text(f"{int(heatmap.edges[i]):>{label_width}} ", style="dim")
        for j in range(n):
            value = float(heatmap.cells[i, j])
            line.append(_glyph(value), style=_colour(value) if math.isfinite(value) else "")
        lines.append(line)
    legend = Text(" " * (label_width + 1) + "-1 ", style="dim")
    for index, char in enumerate(RAMP):
        legend.append(char * 2, style=_colour(-1.0 + 2.0 * index / (len(RAMP) - 1)))
    legend.append(f" +1    q from 0 to {rows - 1} left to right", style="dim")
    lines.append(legend)
    return Group(*lines)


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
    means = [row["mean"] for row in result.neighbour_similarity]
    first, last = means[0], means[-1]
    lines = [Text("Decay of similarity with distance (bars from -1 to +1)", style="bold"),
             _curve_line(f"k = 1..{len(means)}", means, f"{_cos(first)} at k=1 → {_cos(last)} at k={len(means)}")]
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
    parts = []
    heatmap = result.pictures.get("heatmap")
    if heatmap is not None:
        parts.append(heatmap_picture(heatmap, result.scheme))
    parts.append(decay_curves(result))
    return parts
