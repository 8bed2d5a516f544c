"""`posemb compare`: schemes side by side on one batch."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands import real_inputs as inputs
from posemb_cli.cli.output import run_progress, stdout_console, write_json


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.PLOT_FLAGS, opt.COVERAGE_FLAGS,
           opt.OUTPUT_FLAGS)
def compare(
    context: typer.Context,
    schemes: Annotated[str, typer.Option("--schemes", help="Comma list of schemes to compare.",
                                         rich_help_panel=opt.SHARED)] = "learned,sinusoidal",
    **flags: Any,
) -> None:
    """Compare positional schemes side by side on one batch.

    \b
    Example: posemb compare --dim 64 --ctx 512 --schemes learned,sinusoidal
    Example: posemb compare --schemes sinusoidal,rope,alibi,none --rope-scaling yarn --rope-factor 4
    Example: posemb compare --checkpoint gpt2/ --schemes sinusoidal --plot gpt2.svg
    """
    from posemb_cli.run.commands.compare import compare_command

    chosen = opt.command_flags(context, {**flags, "schemes": schemes})
    plot = chosen["plot"]
    inputs.check_plot_flag(plot)
    with run_progress("loading torch") as progress:
        report = compare_command(chosen, progress=progress, observe=inputs.picture_observer(terminal=False, plot=plot))
    inputs.write_requested_plot(plot, report, "posemb compare " + ", ".join(r.scheme for r in report.results))
    if chosen["json"]:
        from posemb_cli.run.report import to_json

        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.documents import render_compare

    stdout_console().print(render_compare(report))
