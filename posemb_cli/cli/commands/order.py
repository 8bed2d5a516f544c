"""`posemb order`: attention with and without position, on a batch and its permutation."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.order.options import OPTIONS


@opt.built_from(OPTIONS)
def order(context: typer.Context, **flags: Any) -> None:
    """Show that attention without position cannot tell a sentence from its permutation.

    \b
    Example: posemb order --schemes none,sinusoidal,rope,alibi --seq-len 16
    """
    from posemb_cli.commands.order.request import order_request
    from posemb_cli.commands.order.run import order_command

    chosen = opt.command_flags(context, flags)
    with run_progress("permuted tokens") as progress:
        report = order_command(order_request(chosen), progress=progress)
    emit(report, chosen["json"], view=_view)


def _view(report):
    """What people see of the report: its renderer, loaded when it is drawn."""
    from posemb_cli.commands.order.render import render_order

    return render_order(report)
