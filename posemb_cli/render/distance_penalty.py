"""ALiBi for people: the bias per head by distance, how far each head sees, and the figures left out; computes nothing.

Reads ``SignalFigures.distance_penalty``, ``slopes`` and ``left_out``.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from posemb_cli.render.fit import Fitted
from posemb_cli.render.format import BAR_WIDTH, count, general
from posemb_cli.run.report import SchemeReport

__all__ = ["left_out_line", "penalty_parts"]

_MAX_HEAD_ROWS = 16
_MAX_DISTANCES = 4
_EIGHTHS = " ▏▎▍▌▋▊▉█"


def _heads_shown(heads: int) -> list[int]:
    """Every head up to 16, else 16 spread evenly with the first and the last."""
    if heads <= _MAX_HEAD_ROWS:
        return list(range(heads))
    step = (heads - 1) / (_MAX_HEAD_ROWS - 1)
    return sorted({round(i * step) for i in range(_MAX_HEAD_ROWS)})


def _picked(rows: list[dict], most: int) -> list[dict]:
    """``most`` of the distances, spread evenly on their log scale, the first and the last kept."""
    if len(rows) <= most:
        return rows
    step = (len(rows) - 1) / (most - 1)
    return [rows[round(i * step)] for i in range(most)]


def _head_cells(heads: list[int]) -> list[tuple[str, str]]:
    """(gap mark, head number) per row shown: ⋮ where heads before the row are not shown."""
    previous, cells = -1, []
    for head in heads:
        cells.append(("⋮" if head - previous > 1 else "", str(head)))
        previous = head
    return cells


def _bias_table(result: SchemeReport, most: int) -> Table:
    figures = result.signal
    assert figures is not None and figures.distance_penalty is not None and figures.slopes is not None
    penalty = figures.distance_penalty
    shown = _heads_shown(penalty.heads)
    rows = _picked(penalty.by_distance, most)
    sampled = len(shown) < penalty.heads
    lines = ["bias = −slope·d, added to the score of a key d positions before (or after) the query",
             f"{len(shown)} of {penalty.heads} heads shown, ⋮ after a gap; --json lists all" if sampled else None]
    table = Table(title="ALiBi: the bias each head adds by distance d=|m−n|", title_justify="left",
                  caption="\n".join(line for line in lines if line), caption_justify="left")
    if sampled:
        table.add_column("", style="dim", no_wrap=True)
    table.add_column("head", justify="right", no_wrap=True)
    table.add_column("slope", justify="right", no_wrap=True)
    for row in rows:
        table.add_column(f"d={count(row['distance'])}", justify="right", no_wrap=True)
    for (gap, label), head in zip(_head_cells(shown), shown, strict=True):
        table.add_row(*((gap,) if sampled else ()), label, general(figures.slopes[head]),
                      *(general(row["bias"][head]) for row in rows))
    return table


def _reach_bar(distance: int | None, ctx: int) -> Text:
    """A bar over distances 0..L−1, filled up to ``distance``; full and marked › where it lies beyond L − 1."""
    if distance is None or distance > ctx - 1:
        return Text("█" * BAR_WIDTH + "›", style="magenta")
    eighths = round(distance / max(ctx - 1, 1) * BAR_WIDTH * 8)
    full, part = divmod(max(eighths, 1), 8)
    return Text("█" * full + (_EIGHTHS[part] if part else ""), style="magenta")


def _reach_table(result: SchemeReport) -> Table:
    figures = result.signal
    assert figures is not None and figures.distance_penalty is not None
    penalty = figures.distance_penalty
    shown = _heads_shown(penalty.heads)
    sampled = len(shown) < penalty.heads
    last = penalty.levels[-1]
    ctx = penalty.ctx
    caption = (f"weight = exp(bias): the share a key d away keeps of the weight the same q·k earns at d=0; "
               f"bar: distances 0..{count(ctx - 1)}, filled up to the {last.weight:.0%} distance (›: past the "
               "context)")
    table = Table(title="ALiBi: how far each head sees", title_justify="left", caption=caption,
                  caption_justify="left")
    if sampled:
        table.add_column("", style="dim", no_wrap=True)
    table.add_column("head", justify="right", no_wrap=True)
    for level in penalty.levels:
        table.add_column(f"below {level.weight:.0%} at d", justify="right", no_wrap=True)
    table.add_column(f"reach in ctx={count(ctx)}", width=BAR_WIDTH + 1, no_wrap=True)
    for (gap, label), head in zip(_head_cells(shown), shown, strict=True):
        cells = ["never" if level.distance[head] is None else count(level.distance[head])  # type: ignore[arg-type]
                 for level in penalty.levels]
        table.add_row(*((gap,) if sampled else ()), label, *cells, _reach_bar(last.distance[head], ctx))
    return table


def penalty_parts(result: SchemeReport) -> list:
    """The bias by distance (as many distances as fit, up to four) and how far each head sees."""
    figures = result.signal
    if figures is None or figures.distance_penalty is None:
        return []
    layouts = [lambda most=most: _bias_table(result, most) for most in range(_MAX_DISTANCES, 1, -1)]
    return [Fitted(*layouts), _reach_table(result)]


_NAMES = {"neighbour_similarity": "neighbour similarity", "heatmap": "similarity heatmap",
          "boundedness": "boundedness"}


def left_out_line(result: SchemeReport, *figures: str) -> Text | None:
    """One line naming the figures of ``figures`` that do not apply to the scheme's signal, and why."""
    left_out = {} if result.signal is None or result.signal.left_out is None else result.signal.left_out
    named = [name for name in figures if name in left_out]
    if not named:
        return None
    text = Text(f"{' and '.join(_NAMES.get(name, name) for name in named).capitalize()}: left out for "
                f"{result.scheme}: ", style="bold")
    reasons = list(dict.fromkeys(left_out[name] for name in named))  # one reason once
    text.append("; ".join(reasons) + ".", style="dim")
    return text
