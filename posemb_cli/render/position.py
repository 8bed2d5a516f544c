"""Rich pieces for the figures beyond the lesson's: scorecard, relative check, decay bound (ALiBi: distance_penalty).

Reads ``SchemeReport.signal``; computes nothing new.
"""

from __future__ import annotations

from typing import cast

from rich import box
from rich.console import Group, JustifyMethod
from rich.table import Table
from rich.text import Text

from posemb_cli.render.context_bound import context_bound_cell, context_bound_line
from posemb_cli.render.distance_penalty import penalty_parts
from posemb_cli.render.fit import Fitted
from posemb_cli.render.format import ROUNDING_NOTE, count, general, within_rounding
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


def _figures(result: SchemeReport) -> SignalFigures:
    if result.signal is None:
        raise ValueError(f"{result.scheme}: no signal figures were measured")
    return result.signal


def _mark(passed: bool, applies: bool = True) -> Text:
    if not applies:
        return Text("n/a¹", style="dim")
    return Text("✓ pass", style="green") if passed else Text("✗ fail", style="bold red")


def _not_applicable(results: list[SchemeReport]) -> list[str]:
    """The footnote of the n/a entries: per property and scheme, why it does not apply."""
    reasons = [f"{key} of {result.scheme}: {entry.why_not}" for result in results
               for key, entry in _figures(result).scorecard.items() if not entry.applies]
    if not reasons:
        return []
    return ["¹ n/a: the property does not apply (" + "; ".join(reasons) + "); --json keeps the figures, with "
            "\"applies\": false"]


_RELATIVE_ALONE = ("relative: of the position signal alone (PE(p+k)≈M_k·PE(p) for a table; q·k of probe "
                   "vectors for rope and alibi), so token-position cross terms play no part")


def scorecard_detail(result: SchemeReport) -> Table:
    card = _figures(result).scorecard
    footnotes = [_RELATIVE_ALONE, *_not_applicable([result]), *_rounding_note([result])]
    table = Table(title="Scorecard: five properties of a position signal, measured", title_justify="left",
                  caption="\n".join(footnotes), caption_justify="left")
    for name, justify in (("property", "left"), ("measures", "left"), ("value", "right"), ("", "center"),
                          ("threshold", "right"), ("result", "left")):
        table.add_column(name, justify=cast(JustifyMethod, justify), no_wrap=name != "measures")
    for key, relation, meaning in _PROPERTIES:
        entry = getattr(card, key)
        meaning += f" ({entry.judged})" if entry.judged else ""  # extrapolation: the formula or the table
        value = entry.shown if entry.applies else "n/a"
        table.add_row(key, meaning, value, relation, general(entry.threshold), _mark(entry.passed, entry.applies))
    return table


def scorecard_notes(result: SchemeReport) -> Table:
    table = Table(title="How each property was measured", title_justify="left", show_header=False)
    table.add_column("property", style="bold", no_wrap=True)
    table.add_column("note", style="dim")
    for key, _, _ in _PROPERTIES:
        table.add_row(key, getattr(_figures(result).scorecard, key).note)
    return table


def _score_cell(entry, relation: str) -> Text:
    """Two lines: the mark and the value, then the threshold it must meet."""
    if not entry.applies:
        return Text("n/a¹", style="dim")
    cell = Text("✓ " if entry.passed else "✗ ", style="green" if entry.passed else "bold red")
    cell.append(entry.shown)
    cell.append(f"\n{relation} {general(entry.threshold)}", style="dim")
    return cell


def _rounding_note(results: list[SchemeReport]) -> list[str]:
    """The footnote of the values shown as their rounding bound, where a scorecard shows one."""
    shown = [entry.shown for result in results for _, entry in _figures(result).scorecard.items() if entry.applies]
    return [ROUNDING_NOTE] if any(value.startswith("<") for value in shown) else []


def _deviation(figures: SignalFigures) -> str:
    return within_rounding(figures.relative.deviation, figures.relative.rounding_bound)


def _judged(results: list[SchemeReport]) -> str:
    """What extrapolation judged, per scheme: "extrapolation judges the formula of sinusoidal, rope; the table of
    learned"."""
    by_kind: dict[str, list[str]] = {}
    for result in results:
        judged = _figures(result).scorecard.extrapolation.judged
        if judged:
            by_kind.setdefault(judged, []).append(result.scheme)
    return "extrapolation judges " + "; ".join(f"the {kind} of {', '.join(names)}" for kind, names in by_kind.items())


def _scorecard_table(results: list[SchemeReport]) -> Table:
    cards = [_figures(result).scorecard for result in results]
    footnotes = ["value, then the threshold it must meet; inspect --scheme NAME says how each was measured",
                 _judged(results), _RELATIVE_ALONE]
    footnotes += _not_applicable(results) + _rounding_note(results)
    table = Table(title="Scorecard: five properties of a position signal", title_justify="left",
                  caption="\n".join(footnotes), caption_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("property", no_wrap=True)
    for result in results:
        table.add_column(result.scheme, justify="right", no_wrap=True)
    for key, relation, _ in _PROPERTIES:
        table.add_row(key, *(_score_cell(getattr(card, key), relation) for card in cards))
    return table


def scorecard_comparison(results: list[SchemeReport]) -> Fitted:
    return Fitted(lambda: _scorecard_table(results),
                  lambda: Group(*(_scorecard_table([result]) for result in results)))


_CROSS_TERMS = ("max|q·k−f(m−n)|: largest gap of the score from a function of m−n, for probe vectors plus "
                "position; for additive schemes it includes the token-position cross terms q·PE(n) and PE(m)·k, "
                "which is why it can be large where the scorecard's relative row (position signal alone) passes")


def _signal_table(results: list[SchemeReport]) -> Table:
    within = [ROUNDING_NOTE] if any(_deviation(_figures(result)).startswith("<") for result in results) else []
    table = Table(title="Where the position goes, and is q·k a function of m−n?", title_justify="left",
                  caption="\n".join([_CROSS_TERMS, *within]), caption_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False)
    table.add_column("", no_wrap=True)
    for result in results:
        table.add_column(result.scheme, justify="right")
    rows = (
        ("acts on", lambda s: s.acts_on),
        ("max|q·k−f(m−n)|", _deviation),
        ("largest |q·k|", lambda s: general(s.relative.scale)),
        ("full turns in ctx", lambda s: "–" if s.full_turn_pairs is None else count(s.full_turn_pairs)),
        ("first Σcos(mθ) < 0", context_bound_cell),
    )
    for label, cell in rows:
        table.add_row(label, *(cell(_figures(result)) for result in results))
    return table


def signal_comparison(results: list[SchemeReport]) -> Fitted:
    return Fitted(lambda: _signal_table(results),
                  lambda: Group(*(_signal_table([result]) for result in results)))


def relative_line(result: SchemeReport) -> Text:
    figures = _figures(result)
    text = Text("Position acts on: ", style="bold")
    text.append(figures.acts_on)
    deviation = _deviation(figures)
    text.append("   max|q·k−f(m−n)| " + ("" if deviation.startswith("<") else "= "), style="bold")
    text.append(deviation)
    text.append(f" (largest |q·k| {general(figures.relative.scale)}; token-position cross terms included)",
                style="dim")
    if figures.attention_factor is not None:
        text.append("   attention factor ", style="bold")
        text.append(general(figures.attention_factor))
    return text


def decay_curve(result: SchemeReport, *, cell: int = 2) -> Group:
    """The RoFormer bound against log distance, as a few rows of block characters ``cell`` wide per distance."""
    points = _figures(result).long_term_decay or []
    bounds = [point.bound for point in points]
    low, high = min(bounds), max(bounds)
    span = (high - low) or 1.0
    heights = [round((b - low) / span * (_CURVE_ROWS * 8 - 1)) + 1 for b in bounds]
    title = Text("Long-term decay (RoFormer 3.4.3): relative upper bound of q·k against distance, log scale",
                 style="bold")
    text = Text(no_wrap=True)  # drawn whole or not at all: ``Fitted`` picks the cell width that fits
    for row in range(_CURVE_ROWS - 1, -1, -1):
        label = general(high) if row == _CURVE_ROWS - 1 else (general(low) if row == 0 else "")
        text.append(f"{label:>9} ┤", style="dim")
        for height in heights:
            level = min(max(height - row * 8, 0), 8)
            text.append(_LEVELS[level] * cell, style="cyan")
        text.append("\n")
    first, last = points[0].distance, points[-1].distance
    axis = f"d={first}".ljust(len(points) * cell - len(f"{last}")) + f"{last}"
    text.append(" " * 10 + "└" + axis, style="dim")
    return Group(title, text)


def compare_parts(results: list[SchemeReport]) -> list:
    if not all(result.signal is not None for result in results):
        return []
    return [signal_comparison(results), scorecard_comparison(results)]


def inspect_parts(result: SchemeReport) -> list:
    figures = result.signal
    if figures is None:
        return []
    parts: list = [relative_line(result)]
    parts += penalty_parts(result)
    if figures.long_term_decay:
        parts.append(Fitted(lambda: decay_curve(result), lambda: decay_curve(result, cell=1)))
    parts += [line for line in (context_bound_line(figures),) if line is not None]
    # the detail's six columns, or the comparison's two-line cells where those do not fit
    parts += [Fitted(lambda: scorecard_detail(result), lambda: _scorecard_table([result])), scorecard_notes(result)]
    return parts


def full_turn_caption(result: SchemeReport, ctx: int) -> str | None:
    count = None if result.signal is None else result.signal.full_turn_pairs
    if count is None or not result.bands:
        return None
    return f"{count} of {len(result.bands)} pairs turn a full circle within ctx={ctx:,}"
