"""Rich pieces for the figures beyond the lesson's: scorecard, relative check, decay bound, ALiBi.

Reads ``SchemeReport.extra``; computes nothing new.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from posemb_cli.render.context_bound import context_bound_cell, context_bound_line
from posemb_cli.render.format import general
from posemb_cli.run.report import SchemeReport

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


def _mark(passed: bool) -> Text:
    return Text("✓ pass", style="green") if passed else Text("✗ fail", style="bold red")


def scorecard_detail(result: SchemeReport) -> Table:
    table = Table(title="Scorecard: five properties of a position signal, measured", title_justify="left")
    for name, justify in (("property", "left"), ("measures", "left"), ("value", "right"), ("", "center"),
                          ("threshold", "right"), ("result", "left")):
        table.add_column(name, justify=justify, no_wrap=name != "measures")
    for key, relation, meaning in _PROPERTIES:
        entry = result.extra["scorecard"][key]
        table.add_row(key, meaning, general(entry["value"]), relation, general(entry["threshold"]),
                      _mark(entry["pass"]))
    return table


def scorecard_notes(result: SchemeReport) -> Table:
    table = Table(title="How each property was measured", title_justify="left", show_header=False)
    table.add_column("property", style="bold", no_wrap=True)
    table.add_column("note", style="dim")
    for key, _, _ in _PROPERTIES:
        table.add_row(key, result.extra["scorecard"][key]["note"])
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
            entry = result.extra["scorecard"][key]
            cell = Text("✓ " if entry["pass"] else "✗ ", style="green" if entry["pass"] else "bold red")
            cell.append(f"{general(entry['value'])} {relation} {general(entry['threshold'])}", style="")
            cells.append(cell)
        table.add_row(key, *cells)
    return table


def signal_comparison(results: list[SchemeReport]) -> Table:
    table = Table(title="Where the position goes, and is q·k a function of m − n?", title_justify="left")
    table.add_column("", no_wrap=True)
    for result in results:
        table.add_column(result.scheme, justify="right")
    rows = (
        ("acts on", lambda e: e["acts_on"]),
        ("max |q·k−f(m−n)|", lambda e: general(e["relative_deviation"])),
        ("largest |q·k|", lambda e: general(e["relative_scale"])),
        ("full turns in ctx", lambda e: str(e["full_turn_pairs"]) if "full_turn_pairs" in e else "–"),
        ("first Σcos(mθ) < 0", context_bound_cell),
    )
    for label, cell in rows:
        table.add_row(label, *(cell(result.extra) for result in results))
    return table


def relative_line(result: SchemeReport) -> Text:
    extra = result.extra
    text = Text("Position acts on: ", style="bold")
    text.append(extra["acts_on"])
    text.append("   max |q·k − f(m−n)| = ", style="bold")
    text.append(general(extra["relative_deviation"]))
    text.append(f" (largest |q·k| {general(extra['relative_scale'])})", style="dim")
    if "attention_factor" in extra:
        text.append("   attention factor ", style="bold")
        text.append(general(extra["attention_factor"]))
    return text


def decay_curve(result: SchemeReport) -> Text:
    """The RoFormer bound against log distance, as a few rows of block characters."""
    points = result.extra["long_term_decay"]
    bounds = [point["bound"] for point in points]
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
    first, last = points[0]["distance"], points[-1]["distance"]
    axis = f"d={first}".ljust(len(points) * 2 - len(f"{last}")) + f"{last}"
    text.append(" " * 10 + "└" + axis, style="dim")
    return text


def alibi_table(result: SchemeReport) -> Table:
    rows = result.extra["attention_bias"][1:_MAX_ALIBI_OFFSETS + 1]
    table = Table(title="ALiBi: slope and the bias added to the score at offset k, per head", title_justify="left")
    table.add_column("head", justify="right")
    table.add_column("slope", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    for row in rows:
        table.add_column(f"k={row['offset']}", justify="right", no_wrap=True)
    steepest = max(result.extra["slopes"])
    for head, slope in enumerate(result.extra["slopes"]):
        bar = Text("█" * max(1, round(slope / steepest * 6)), style="magenta")
        table.add_row(str(head), f"{slope:.4g}", bar, *(f"{row['bias'][head]:.3g}" for row in rows))
    return table


def compare_parts(results: list[SchemeReport]) -> list:
    if not all("scorecard" in result.extra for result in results):
        return []
    return [signal_comparison(results), scorecard_comparison(results)]


def inspect_parts(result: SchemeReport) -> list:
    extra = result.extra
    if "scorecard" not in extra:
        return []
    parts: list = [relative_line(result)]
    if "slopes" in extra:
        parts.append(alibi_table(result))
    if extra.get("long_term_decay"):
        parts.append(decay_curve(result))
    parts += [line for line in (context_bound_line(extra),) if line is not None]
    parts += [scorecard_detail(result), scorecard_notes(result)]
    return parts


def full_turn_caption(result: SchemeReport, ctx: int) -> str | None:
    count = result.extra.get("full_turn_pairs")
    if count is None or not result.bands:
        return None
    return f"{count} of {len(result.bands)} pairs turn a full circle within ctx={ctx}"
