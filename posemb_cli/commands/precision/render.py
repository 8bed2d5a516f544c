"""`posemb precision` for people: one row per dtype and recipe, then the error at log-spaced positions."""

from __future__ import annotations

from typing import cast

from rich import box
from rich.console import Group, JustifyMethod
from rich.table import Table
from rich.text import Text

from posemb_cli.commands.precision.report import PrecisionReport
from posemb_cli.render.fit import Fitted, whole
from posemb_cli.render.format import general
from posemb_cli.render.source import resolved_text
from posemb_cli.run.documents import shows

_SHORT = {"float32": "fp32", "float64": "fp64", "float16": "fp16", "bfloat16": "bf16"}

__all__ = ["render_precision"]


def _summary(report: PrecisionReport, results: list, ctx: int, name: str | None) -> Table:
    what = f"RoPE set {name}" if name else f"{report.config['scheme']} signal"
    table = Table(title=f"{what} per dtype against float64, every position below {ctx:,}",
                  title_justify="left",
                  caption="collapse: first p held equal to p+1, bit for bit; errors: the largest over every "
                          "position and pair. native: positions, frequencies and cos/sin held in the dtype; "
                          "cast: computed in float32, then cast. --dtype elsewhere: " + ", ".join(
                              f"{d} {r}" for d, r in report.config["signal_recipe"].items()),
                  caption_justify="left")
    for name, justify in (("dtype", "left"), ("recipe", "left"), ("collapse", "right"),
                          ("phase err (rad)", "right"), ("value err", "right")):
        table.add_column(name, justify=cast(JustifyMethod, justify), no_wrap=True)
    for result in results:
        collapse = (Text("never", style="green") if result.first_collapse is None
                    else Text(f"{result.first_collapse:,}", style="bold red"))
        table.add_row(_SHORT[result.dtype], result.recipe, collapse, general(result.max_phase_error),
                      general(result.max_value_error))
    return table


def _by_position(results: list, *, compact: bool) -> Table:
    """compact: no vertical rules and ``p`` for the position, so six figure columns fit in 80 columns."""
    title = "Phase error (rad) at log-spaced positions" + (" p" if compact else "")
    table = (Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False) if compact
             else Table(title=title, title_justify="left"))
    table.add_column("p" if compact else "position", justify="right", no_wrap=True)
    for result in results:
        table.add_column(f"{_SHORT[result.dtype]}\n{result.recipe}", justify="right", no_wrap=True)
    for index, row in enumerate(results[0].by_position):
        table.add_row(f"{row['position']:,}", *(general(result.by_position[index]["phase_error"])
                                                 for result in results))
    return table


def _set_parts(report: PrecisionReport, results: list, ctx: int, name: str | None) -> list:
    return [whole(_summary(report, results, ctx, name)), Fitted(lambda: _by_position(results, compact=False),
                                                                  lambda: _by_position(results, compact=True))]


@shows(PrecisionReport)
def render_precision(report: PrecisionReport) -> Group:
    """One summary and one table by position per RoPE set of a real model (a lone scheme: one of each)."""
    sets = report.config.get("rope_sets")
    source = report.config.get("source") or {}
    named = resolved_text(source, file=source.get("checkpoint") or source.get("config"))
    parts: list = [] if named is None else [named]
    if not sets:
        return Group(*parts, *_set_parts(report, report.results, report.config["ctx"], None))
    for one in sets:
        results = [result for result in report.results if result.rope_set == one["rope_set"]]
        parts += _set_parts(report, results, one["ctx"], one["rope_set"] if len(sets) > 1 else None)
    if len(sets) > 1:
        parts.append(Text("Each set over every position of its context: a sliding set's layers attend within their "
                          "window, but rotate queries and keys at every position.", style="dim"))
    return Group(*parts)
