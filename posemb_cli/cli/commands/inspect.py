"""`posemb inspect`: one scheme in depth."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands import real_inputs as inputs
from posemb_cli.cli.output import run_progress, stdout_console, write_json


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.CONFIG_FLAGS, opt.PICTURE_FLAGS,
           opt.PLOT_FLAGS, opt.COVERAGE_FLAGS, opt.OUTPUT_FLAGS)
def inspect(
    context: typer.Context,
    scheme: Annotated[opt.SchemeName, typer.Option("--scheme", help="The scheme to inspect.",
                                                   rich_help_panel=opt.SHARED)] = opt.SchemeName("sinusoidal"),
    **flags: Any,
) -> None:
    """Inspect one positional scheme in depth: shapes, parameters, decay, norms, bands, pictures.

    \b
    Example: posemb inspect --scheme sinusoidal --dim 32
    Example: posemb inspect --scheme rope --rope-layout half --rope-scaling llama3 --rope-factor 8
    Example: posemb inspect --checkpoint gpt2/model.safetensors --plot gpt2.png
    Example: posemb inspect --config Llama-3.1-8B/config.json
    """
    from posemb_cli.run.commands.inspect import inspect_command

    chosen = opt.command_flags(context, {**flags, "scheme": scheme})
    plot = chosen["plot"]
    inputs.check_plot_flag(plot)
    with run_progress("loading torch") as progress:
        observe = inputs.picture_observer(terminal=not (chosen["json"] or chosen["no_plot"]), plot=plot,
                                          full=chosen["pictures"] == "full")
        report = inspect_command(chosen, progress=progress, observe=observe, note=inputs.note)
    inputs.write_requested_plot(plot, report, f"posemb inspect {report.result.scheme}")
    if chosen["json"]:
        from posemb_cli.run.report import to_json

        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.documents import render_inspect

    stdout_console().print(render_inspect(report))
