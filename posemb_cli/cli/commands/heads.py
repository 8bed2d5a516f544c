"""`posemb heads`: which RoPE frequencies a trained model's query and key weights use, head by head."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands.real_inputs import check_plot_flag
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.heads.options import OPTIONS


@opt.built_from(OPTIONS)
def heads(context: typer.Context, **flags: Any) -> None:
    """Show which RoPE frequencies each head's query and key weights use: pair shares, kernel, labels.

    \b
    Example: posemb heads SmolLM2-135M-Instruct.Q4_1.gguf
    Example: posemb heads meta-llama/Llama-3.1-8B --distances 0,1,8,4096 --json
    """
    from posemb_cli.commands.heads.request import heads_request
    from posemb_cli.commands.heads.run import heads_command

    chosen = opt.command_flags(context, flags)
    plot = chosen["plot"]
    check_plot_flag(plot)
    with run_progress("reading the model") as progress:
        report = heads_command(heads_request(chosen), progress=progress)
    if plot is not None:
        from posemb_cli.commands.heads.plot import write_heads_plot

        write_heads_plot(plot, report)
    emit(report, chosen["json"], view=_view)


def _view(report):
    """What people see of the report: its renderer, loaded when it is drawn."""
    from posemb_cli.commands.heads.render import shown

    return shown(report)
