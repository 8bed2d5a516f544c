"""`posemb compare`: schemes side by side on one batch, or real models side by side (one column per RoPE set)."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands import real_inputs as inputs
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.compare.options import OPTIONS


@opt.built_from(OPTIONS)
def compare(context: typer.Context, **flags: Any) -> None:
    """Compare positional schemes side by side on one batch, or real models (MODEL MODEL ...) side by side.

    \b
    Example: posemb compare --dim 64 --ctx 512 --schemes learned,sinusoidal
    Example: posemb compare --schemes sinusoidal,rope,alibi,none \\
               --rope-scaling yarn --rope-factor 4
    Example: posemb compare SmolLM2-135M-Instruct.Q4_1.gguf google/gemma-3-270m
    Example: posemb compare ollama:llama3.1:8b \\
               --scalings none,linear:4,yarn:4,llama3:8
    Example: posemb compare --checkpoint gpt2/ --schemes sinusoidal \\
               --plot gpt2.svg
    """
    from posemb_cli.commands.compare.request import compare_request
    from posemb_cli.commands.compare.run import compare_command

    chosen = opt.command_flags(context, {**flags, "models": list(flags["models"] or ())})
    plot = chosen["plot"]
    inputs.check_plot_flag(plot)
    with run_progress("loading torch") as progress:
        request = compare_request(chosen, note=inputs.note)
        observe = inputs.picture_observer(terminal=False, plot=plot)
        report = compare_command(request, progress=progress, observe=observe)
    inputs.write_requested_plot(plot, report, "posemb compare " + ", ".join(r.scheme for r in report.columns()))
    emit(report, chosen["json"])
