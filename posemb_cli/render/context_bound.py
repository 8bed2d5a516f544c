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
        verdict = "covers" if first >= ctx else "does not cover"
        text.append(f" ({verdict} ctx={ctx:,})", style="green" if first >= ctx else "bold red")
    if bound.min_base is not None:
        text.append(f"; smallest base covering ctx={ctx:,}: {general(bound.min_base)}", style="dim")
    return text
