"""Rich pieces for the figures beyond the lesson's: scorecard, relative check, decay bound, ALiBi.

Reads ``SchemeReport.signal``; computes nothing new.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from posemb_cli.render.context_bound import context_bound_cell, context_bound_line
from posemb_cli.render.format import general
from posemb_cli.run.report import SchemeReport, SignalFigures

_PROPERTIES = (
    ("uniqueness", ">", "closest two positions"),
    ("boundedness", "≤", "largest |x|"),
    ("relative", "≤", "offset-only residual"),
    ("extrapolation", "≥", "longest length served"),
    ("determinism", "≤", "rebuild difference"),
)
_LEVELS = " ▁▂▃▄▅▆▇█"
_CURVE_ROWS = 4
_MAX_ALIBI_OFFSETS = 4


def _figures(result: SchemeReport) -> SignalFigures:
    if result.signal is None:
        raise ValueError(f"{result.scheme}: no signal figures were measured")
    return result.signal


def _mark(passed: bool) -> Text:
    return Text("✓ pass", style="green") if passed else Text("✗ fail", style="bold red")


def scorecard_detail(result: SchemeReport) -> Table:
    table = Table(title="Scorecard: five properties of a position signal, measured", title_justify="left")
    for name, justify in (("property", "left"), ("measures", "left"), ("value", "right"), ("", "center"),
                          ("threshold", "right"), ("result", "left")):
        table.add_column(name, justify=justify, no_wrap=name != "measures")
    card = _figures(result).scorecard
    for key, relation, meaning in _PROPERTIES:
        entry = getattr(card, key)
        table.add_row(key, meaning, general(entry.value), relation, general(entry.threshold), _mark(entry.passed))
    return table


def scorecard_notes(result: SchemeReport) -> Table:
    table = Table(title="How each property was measured", title_justify="left", show_header=False)
    table.add_column("property", style="bold", no_wrap=True)
    table.add_column("note", style="dim")
    for key, _, _ in _PROPERTIES:
        table.add_row(key, getattr(_figures(result).scorecard, key).note)
    return table


def scorecard_comparison(results: list[SchemeReport]) -> Table:
    table = Table(title="Scorecard (value, then the threshold it must meet)", title_justify="left",
                  caption="inspect --scheme NAME says how each was measured", caption_justify="left")
    table.add_column("property", no_wrap=True)
    for result in results:
        table.add_column(result.scheme, justify="right")
    for key, relation, _ in _PROPERTIES:
        cells = []
        for result in results:
            entry = getattr(_figures(result).scorecard, key)
            cell = Text("✓ " if entry.passed else "✗ ", style="green" if entry.passed else "bold red")
            cell.append(f"{general(entry.value)} {relation} {general(entry.threshold)}", style="")
            cells.append(cell)
        table.add_row(key, *cells)
    return table


def signal_comparison(results: list[SchemeReport]) -> Table:
    table = Table(title="Where the position goes, and is q·k a function of m − n?", title_justify="left")
    table.add_column("", no_wrap=True)
    for result in results:
        table.add_column(result.scheme, justify="right")
    rows = (
        ("acts on", lambda s: s.acts_on),
        ("max |q·k−f(m−n)|", lambda s: general(s.relative.deviation)),
        ("largest |q·k|", lambda s: general(s.relative.scale)),
        ("full turns in ctx", lambda s: "–" if s.full_turn_pairs is None else str(s.full_turn_pairs)),
        ("first Σcos(mθ) < 0", context_bound_cell),
    )
    for label, cell in rows:
        table.add_row(label, *(cell(_figures(result)) for result in results))
    return table


def relative_line(result: SchemeReport) -> Text:
    figures = _figures(result)
    text = Text("Position acts on: ", style="bold")
    text.append(figures.acts_on)
    text.append("   max |q·k − f(m−n)| = ", style="bold")
    text.append(general(figures.relative.deviation))
    text.append(f" (largest |q·k| {general(figures.relative.scale)})", style="dim")
    if figures.attention_factor is not None:
        text.append("   attention factor ", style="bold")
        text.append(general(figures.attention_factor))
    return text


def decay_curve(result: SchemeReport) -> Text:
    """The RoFormer bound against log distance, as a few rows of block characters."""
    points = _figures(result).long_term_decay or []
    bounds = [point.bound for point in points]
    low, high = min(bounds), max(bounds)
    span = (high - low) or 1.0
    heights = [round((b - low) / span * (_CURVE_ROWS * 8 - 1)) + 1 for b in bounds]
    text = Text("Long-term decay (RoFormer 3.4.3): relative upper bound of q·k against distance, log scale\n",
                style="bold")
    for row in range(_CURVE_ROWS - 1, -1, -1):
        label = general(high) if row == _CURVE_ROWS - 1 else (general(low) if row == 0 else "")
        text.append(f"{label:>9} ┤", style="dim")
        for height in heights:
            level = min(max(height - row * 8, 0), 8)
            text.append(_LEVELS[level] * 2, style="cyan")
        text.append("\n")
    first, last = points[0].distance, points[-1].distance
    axis = f"d={first}".ljust(len(points) * 2 - len(f"{last}")) + f"{last}"
    text.append(" " * 10 + "└" + axis, style="dim")
    return text


def alibi_table(result: SchemeReport) -> Table:
    figures = _figures(result)
    rows = (figures.attention_bias or [])[1:_MAX_ALIBI_OFFSETS + 1]
    slopes = figures.slopes or []
    table = Table(title="ALiBi: slope and the bias added to the score at offset k, per head", title_justify="left")
    table.add_column("head", justify="right")
    table.add_column("slope", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    for row in rows:
        table.add_column(f"k={row['offset']}", justify="right", no_wrap=True)
    steepest = max(slopes)
    for head, slope in enumerate(slopes):
        bar = Text("█" * max(1, round(slope / steepest * 6)), style="magenta")
        table.add_row(str(head), f"{slope:.4g}", bar, *(f"{row['bias'][head]:.3g}" for row in rows))
    return table


def compare_parts(results: list[SchemeReport]) -> list:
    if not all(result.signal is not None for result in results):
        return []
    return [signal_comparison(results), scorecard_comparison(results)]


def inspect_parts(result: SchemeReport) -> list:
    figures = result.signal
    if figures is None:
        return []
    parts: list = [relative_line(result)]
    if figures.slopes is not None:
        parts.append(alibi_table(result))
    if figures.long_term_decay:
        parts.append(decay_curve(result))
    parts += [line for line in (context_bound_line(figures),) if line is not None]
    parts += [scorecard_detail(result), scorecard_notes(result)]
    return parts


def full_turn_caption(result: SchemeReport, ctx: int) -> str | None:
    count = None if result.signal is None else result.signal.full_turn_pairs
    if count is None or not result.bands:
        return None
    return f"{count} of {len(result.bands)} pairs turn a full circle within ctx={ctx}"
