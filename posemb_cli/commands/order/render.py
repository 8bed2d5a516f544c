"""Rich output of `posemb order`, from its report; computes nothing new."""

from __future__ import annotations

import math

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from posemb_cli.commands.order.report import OrderReport
from posemb_cli.render.fit import whole
from posemb_cli.render.format import ROUNDING_NOTE, general, header, within_rounding
from posemb_cli.run.documents import shows

_BAR_WIDTH = 8
_DECADES = 8  # the bar spans relative gaps from 1e-8 to 1 on a log scale


def _log_bar(relative: float) -> Text:
    """Bar length by log10 of the relative gap: empty at 1e-8 or below, full at 1 or above."""
    if not math.isfinite(relative) or relative <= 0:
        return Text("")
    fill = min(max((math.log10(relative) + _DECADES) / _DECADES, 0.0), 1.0)
    return Text("█" * max(1, round(fill * _BAR_WIDTH)), style="green" if fill < 0.5 else "red")


def _figures(row: dict) -> tuple[str, str]:
    """max |diff| and relative; an equivariant row's gap (rounding, not a property of the scheme) as its bound."""
    if not row["equivariant"]:
        return general(row["max_abs_diff"]), general(row["relative_diff"])
    level = row["rounding_level"]
    return (within_rounding(row["max_abs_diff"], level * row["output_max_abs"]),
            within_rounding(row["relative_diff"], level))


def order_table(report: OrderReport) -> Table:
    within = any(_figures(row)[1].startswith("<") for row in report.results)
    caption = ("relative = max|diff|/max|attn(x)|\nbar: log10 of relative, empty at 1e-8 or below, full at 1 or "
               "above (a relative gap past 1 cannot grow the bar)")
    lines = [caption, *([f"{ROUNDING_NOTE} (and no bar)"] if within else [])]
    table = Table(title="Permuted tokens: max|attn(Px)−P·attn(x)|", title_justify="left", box=box.SIMPLE_HEAD,
                  caption="\n".join(lines), caption_justify="left")
    table.add_column("scheme", no_wrap=True)
    table.add_column("acts on", style="dim")
    table.add_column("max |diff|", justify="right", no_wrap=True)
    table.add_column("relative", justify="right", no_wrap=True)
    table.add_column("", width=_BAR_WIDTH, no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    for row in report.results:
        verdict = (Text("equivariant", style="green") if row["equivariant"]
                   else Text("order-sensitive", style="bold red"))
        gap, relative = _figures(row)
        bar = Text("") if relative.startswith("<") else _log_bar(row["relative_diff"])
        table.add_row(row["scheme"], row["acts_on"], gap, relative, bar, verdict)
    return table


@shows(OrderReport)
def render_order(report: OrderReport) -> RenderableType:
    note = Text(f"One seeded head, no mask, pre-normalised inputs. Equivariant: relative gap at most "
                f"{general(report.results[0]['rounding_level'])} (1000 machine epsilons). "
                "ALiBi uses its steepest head.", style="dim")
    return whole(Group(header(report.config, "order"), order_table(report), note))
