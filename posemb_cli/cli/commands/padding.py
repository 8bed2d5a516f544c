"""`posemb padding`: one attention head on a batch and on the same batch left-padded, per position-id choice."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.padding.options import OPTIONS


@opt.built_from(OPTIONS)
def padding(context: typer.Context, **flags: Any) -> None:
    """Show which schemes give left-padded tokens the same outputs, with naive and mask-derived position ids.

    \b
    Example: posemb padding --schemes learned,rope --pad 8 --seq-len 16
    Example: posemb padding Llama-3.1-8B/config.json --pad 64
    Example: posemb padding Qwen/Qwen2.5-0.5B   (from the Hugging Face cache)
    """
    from posemb_cli.commands.padding.request import padding_request
    from posemb_cli.commands.padding.run import padding_command

    chosen = opt.command_flags(context, flags)
    with run_progress("left padding") as progress:
        report = padding_command(padding_request(chosen), progress=progress)
    emit(report, chosen["json"], view=_view)


def _view(report):
    """What people see of the report: its renderer, loaded when it is drawn."""
    from posemb_cli.commands.padding.render import render_padding

    return render_padding(report)
