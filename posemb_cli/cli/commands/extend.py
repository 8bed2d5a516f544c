"""`posemb extend`: which RoPE scaling, which factor, to run a model at a length past the one it was trained at."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands.real_inputs import check_plot_flag
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.extend.options import OPTIONS


@opt.built_from(OPTIONS)
def extend(context: typer.Context, **flags: Any) -> None:
    """Rank RoPE scalings for running a model at --to L positions, and give the config block to paste.

    With --text (or --ids), also measure each candidate on the model at L and set that ranking beside the
    predicted one.

    \b
    Example: posemb extend SmolLM2-135M-Instruct.Q4_1.gguf --to 32768
    Example: posemb extend Llama-3.1-8B/config.json --to 524288 \\
               --scalings yarn,llama3 --json
    Example: posemb extend SmolLM2-135M-Instruct.Q4_1.gguf --to 16384 \\
               --text book.txt --plot loss.png
    """
    from posemb_cli.commands.extend.request import extend_request
    from posemb_cli.commands.extend.run import extend_command

    chosen = opt.command_flags(context, flags)
    plot = chosen["plot"]
    check_plot_flag(plot)
    with run_progress("reading the model") as progress:
        report = extend_command(extend_request(chosen), progress=progress)
    if plot is not None:
        from posemb_cli.commands.extend.plot import write_extend_plot

        write_extend_plot(plot, report)
    emit(report, chosen["json"], view=_view)


def _view(report):
    """What people see of the report: its renderer, loaded when it is drawn."""
    from posemb_cli.commands.extend.render import shown

    return shown(report)
