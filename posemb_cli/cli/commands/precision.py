"""`posemb precision`: a frequency position signal in each dtype, native and cast, against float64."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.precision.options import OPTIONS


@opt.built_from(OPTIONS)
def precision(context: typer.Context, **flags: Any) -> None:
    """Show where positions collapse and how far phases drift when the signal is held in a low-precision dtype.

    \b
    Example: posemb precision --scheme rope --dim 128 --ctx 8192
    Example: posemb precision Llama-3.1-8B/config.json --dtypes bfloat16
    Example: posemb precision ollama:gemma3:270m
    """
    from posemb_cli.commands.precision.request import precision_request
    from posemb_cli.commands.precision.run import precision_command

    chosen = opt.command_flags(context, flags)
    with run_progress("precision") as progress:
        report = precision_command(precision_request(chosen), progress=progress)
    emit(report, chosen["json"], view=_view)


def _view(report):
    """What people see of the report: its renderer, loaded when it is drawn."""
    from posemb_cli.commands.precision.render import render_precision

    return render_precision(report)
