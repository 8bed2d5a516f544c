"""`posemb compare`: schemes side by side on one batch, or real models side by side (one column per RoPE set)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands import real_inputs as inputs
from posemb_cli.cli.output import emit, run_progress


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.PLOT_FLAGS, opt.COVERAGE_FLAGS,
           opt.OUTPUT_FLAGS)
def compare(
    context: typer.Context,
    models: Annotated[list[str] | None, typer.Argument(
        metavar="MODEL", show_default=False,
        help="Real models side by side, each as posemb inspect reads it (one column per RoPE set): "
             f"{opt.MODEL_HELP[0].lower()}{opt.MODEL_HELP[1:]}")] = None,
    schemes: Annotated[str, typer.Option("--schemes", help="Comma list of schemes to compare.",
                                         rich_help_panel=opt.SHARED)] = "learned,sinusoidal",
    scalings: Annotated[str | None, typer.Option(
        "--scalings", metavar="NAME:FACTOR,...", show_default=False, rich_help_panel=opt.REAL,
        help="Each MODEL under each RoPE scaling: none, or linear, ntk, dynamic, yarn, llama3, longrope with its "
             "factor (yarn:4), as posemb extend writes their rope_parameters; the factor is relative to the length "
             "the model's unscaled frequencies were trained at.")] = None,
    **flags: Any,
) -> None:
    """Compare positional schemes side by side on one batch, or real models (MODEL MODEL ...) side by side.

    \b
    Example: posemb compare --dim 64 --ctx 512 --schemes learned,sinusoidal
    Example: posemb compare --schemes sinusoidal,rope,alibi,none --rope-scaling yarn --rope-factor 4
    Example: posemb compare SmolLM2-135M-Instruct.Q4_1.gguf google/gemma-3-270m
    Example: posemb compare ollama:llama3.1:8b --scalings none,linear:4,yarn:4,llama3:8
    Example: posemb compare --checkpoint gpt2/ --schemes sinusoidal --plot gpt2.svg
    """
    from posemb_cli.commands.compare.run import compare_command

    chosen = opt.command_flags(context, {**flags, "models": list(models or ()), "schemes": schemes,
                                         "scalings": scalings})
    plot = chosen["plot"]
    inputs.check_plot_flag(plot)
    with run_progress("loading torch") as progress:
        report = compare_command(chosen, progress=progress, observe=inputs.picture_observer(terminal=False, plot=plot),
                                 note=inputs.note)
    inputs.write_requested_plot(plot, report, "posemb compare " + ", ".join(r.scheme for r in report.columns()))
    emit(report, chosen["json"])
