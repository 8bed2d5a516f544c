"""`posemb padding` for people: per scheme, the change under left padding with each choice of position ids."""

from __future__ import annotations

from typing import cast

from rich.console import Group, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from posemb_cli.commands.padding.report import PaddingReport
from posemb_cli.render.fit import Fitted
from posemb_cli.render.format import general
from posemb_cli.render.source import resolved_text
from posemb_cli.run.documents import shows

__all__ = ["render_padding", "why"]


def why(result: dict, pad: int) -> str:
    """Why a scheme is or is not invariant, from what the report says (where the position acts, which ids)."""
    acts_on, kind = result["acts_on"], result["position_ids"]
    if acts_on == "nothing":
        return "no position signal: masked pads change nothing"
    if kind == "from_mask":
        return "real tokens keep positions 0..T-1 and pad keys are masked" if result["invariant"] else \
            "changed although the real tokens keep their positions"
    if acts_on == "input":
        return f"absolute table: real tokens read rows {pad}..{pad}+T-1 instead of 0..T-1"
    if result["invariant"]:
        return f"scores depend on m−n only: the shift by {pad} cancels"
    return f"{acts_on} see the shift by {pad}"


_CAPTION = "arange: ids 0..N+T-1 whatever the mask; from_mask: cumsum(mask)-1 (pads set to 1)"
_ROUNDING = ("<x: a change within the dtype's rounding (relative change at most its rounding level), whose digits "
             "differ from machine to machine; --json gives them")


def _figures(result: dict) -> tuple[str, str]:
    """max |Δ| and the relative change; a change within rounding as its bound (``<x``): its own digits are the
    rounding of this machine's arithmetic, not a property of the scheme."""
    gap, relative = result["max_abs_diff"], result["relative_diff"]
    if not result["invariant"] or gap == 0:
        return general(gap), general(relative)
    rounding = result["rounding_level"]
    return f"<{general(rounding * result['output_max_abs'])}", f"<{general(rounding)}"


def _table(report: PaddingReport, *, footnotes: bool) -> Table:
    """One row per scheme and position ids; the why in its own column, or (``footnotes``) as a letter
    whose sentence is told once under the table."""
    pad = report.config["pad"]
    reasons = list(dict.fromkeys(why(result, pad) for result in report.results))
    letters = {reason: chr(ord("a") + index) for index, reason in enumerate(reasons)}
    within = [_ROUNDING] if any(_figures(result)[1].startswith("<") for result in report.results) else []
    caption = "\n".join([*(f"{letters[reason]}: {reason}" for reason in reasons), _CAPTION, *within] if footnotes
                        else [_CAPTION, *within])
    table = Table(title=f"Left padding with {pad} masked pad tokens: largest change of the real tokens' outputs",
                  title_justify="left", caption=caption, caption_justify="left")
    for name, justify in (("scheme", "left"), ("position ids", "left"), ("max |Δ|", "right"),
                          ("relative", "right"), ("", "left"), ("why", "left")):
        table.add_column(name, justify=cast(JustifyMethod, justify), no_wrap=True)
    for result in report.results:
        mark = Text("✓ invariant", style="green") if result["invariant"] else Text("✗ shifts", style="bold red")
        scheme = result["scheme"] + (f" {result['rope_set']}" if result.get("rope_set", "shared") != "shared" else "")
        reason = why(result, pad)
        table.add_row(scheme, result["position_ids"], *_figures(result), mark,
                      letters[reason] if footnotes else reason)
    return table


@shows(PaddingReport)
def render_padding(report: PaddingReport) -> RenderableType:
    """The table with its why beside each row where that fits, else as lettered sentences under it."""
    table = Fitted(lambda: _table(report, footnotes=False), lambda: _table(report, footnotes=True))
    if report.source is None:
        return table
    source = report.source
    where = source.get("checkpoint") or source.get("config")
    decided = source.get("decided_by", "")
    for rule in (report.model or {}).get("rules", []):
        decided = decided.replace(f"; {rule}", "")
    line = Text(f"{where}: {source.get('kind')} ({decided})", style="dim")
    return Group(line, *(named for named in (resolved_text(source),) if named is not None), table)
