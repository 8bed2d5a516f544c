"""`posemb inspect`: one scheme in depth."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands import real_inputs as inputs
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.inspect.options import OPTIONS


@opt.built_from(OPTIONS)
def inspect(context: typer.Context, **flags: Any) -> None:
    """Inspect one positional scheme, or a real MODEL, in depth: shapes, parameters, decay, norms, bands, pictures.

    \b
    Example: posemb inspect --scheme sinusoidal --dim 32
    Example: posemb inspect --scheme rope --rope-layout half \\
               --rope-scaling llama3 --rope-factor 8
    Example: posemb inspect SmolLM2-135M-Instruct.Q4_1.gguf
    Example: posemb inspect meta-llama/Llama-3.1-8B   (Hugging Face cache)
    Example: posemb inspect --checkpoint gpt2/model.safetensors \\
               --plot gpt2.png
    """
    from posemb_cli.commands.inspect.request import inspect_request
    from posemb_cli.commands.inspect.run import inspect_command

    chosen = opt.command_flags(context, flags)
    plot = chosen["plot"]
    inputs.check_plot_flag(plot)
    with run_progress("loading torch") as progress:
        observe = inputs.picture_observer(terminal=not (chosen["json"] or chosen["no_plot"]), plot=plot,
                                          full=chosen["pictures"] == "full")
        report = inspect_command(inspect_request(chosen, note=inputs.note), progress=progress, observe=observe)
    inputs.write_requested_plot(plot, report, f"posemb inspect {report.result.scheme}")
    emit(report, chosen["json"])
