"""`posemb doctor`: lint a model's position setup (config.json, or a checkpoint and the config beside it)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import run_progress, stdout_console, write_json
from posemb_cli.errors import EXIT_DOCTOR_ERROR


@opt.takes(opt.OUTPUT_FLAGS)
def doctor(
    context: typer.Context,
    model_config: Annotated[str | None, typer.Option(
        "--config", help="A Hugging Face style config.json (or its directory).", show_default=False,
        rich_help_panel=opt.REAL)] = None,
    checkpoint: Annotated[str | None, typer.Option(
        "--checkpoint", help="A model's weights (file or directory): its position table, checked against the "
        "config.json beside it.", show_default=False, rich_help_panel=opt.REAL)] = None,
    **flags: Any,
) -> None:
    """Find mistakes in a model's position setup; exit 3 when one is an error.

    \b
    Example: posemb doctor --config Llama-3.1-8B/config.json
    Example: posemb doctor --checkpoint gpt2/ --json
    """
    from posemb_cli.run.commands.doctor import doctor_command

    chosen = opt.command_flags(context, {**flags, "model_config": model_config, "checkpoint": checkpoint})
    with run_progress("checking the position setup"):
        report = doctor_command(chosen)
    if chosen["json"]:
        from posemb_cli.run.report import to_json

        write_json(to_json(report.to_dict()))
    else:
        from posemb_cli.render.doctor import render_doctor

        stdout_console().print(render_doctor(report))
    if report.has_error:
        raise typer.Exit(EXIT_DOCTOR_ERROR)
