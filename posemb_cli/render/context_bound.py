"""The base's context bound as one line of text (reads the ``context_bound`` figure; computes nothing)."""

from __future__ import annotations

from rich.text import Text

from posemb_cli.render.format import general
from posemb_cli.run.report import SignalFigures

__all__ = ["context_bound_cell", "context_bound_line"]


def context_bound_cell(figures: SignalFigures) -> str:
    bound = figures.context_bound
    if bound is None:
        return "–"
    first = bound.first_negative
    return f"m={first:,}" if first is not None else f"none below {bound.scanned_to:,}"


def context_bound_line(figures: SignalFigures) -> Text | None:
    """'Context bound (Men et al. 2024): ...', or None for schemes without a base."""
    bound = figures.context_bound
    if bound is None:
        return None
    first, ctx = bound.first_negative, bound.ctx
    text = Text("Context bound (Men et al. 2024): ", style="bold")
    if first is None:
        text.append(f"Σ cos(m·θ) stays ≥ 0 for every m below {bound.scanned_to:,}")
    else:
        text.append(f"Σ cos(m·θ) first negative at m = {first:,}")
    if bound.covers is not None:
        verdict = "covers" if bound.covers else "does not cover"
        text.append(f" ({verdict} distances below {ctx:,})", style="green" if bound.covers else "bold red")
    else:
        text.append(f" (distances below {ctx:,} not scanned past {bound.scanned_to:,})", style="yellow")
    if bound.dip is not None and bound.dip.sum < 0:
        text.append(f"; lowest {general(bound.dip.sum)} ({general(100 * bound.dip.depth)}% of the pairs) "
                    f"at m = {bound.dip.at:,}")
    grid = bound.grid
    if bound.min_base is not None:
        text.append(f"; every grid base from {general(bound.min_base)} up covers them ({grid.per_decade} a decade, "
                    f"{grid.figures} figures; every base from {general(grid.proven_from)} up provably does)",
                    style="dim")
    elif grid.proven_from is not None:
        text.append(f"; every base from {general(grid.proven_from)} up provably covers them (bases below are not "
                    "scanned at this length)", style="dim")
    return text
