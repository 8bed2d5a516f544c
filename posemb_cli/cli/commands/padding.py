"""`posemb padding`: one attention head on a batch and on the same batch left-padded, per position-id choice."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import emit, run_progress


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.CONFIG_FLAGS, opt.OUTPUT_FLAGS,
           skip=("max_offset",))
def padding(
    context: typer.Context,
    model: opt.ModelArgument = None,
    schemes: Annotated[str, typer.Option(
        "--schemes", help="Comma list of schemes to compare; none is NoPE.",
        rich_help_panel=opt.SHARED)] = "none,learned,sinusoidal,rope,alibi",
    pad: Annotated[int, typer.Option("--pad", help="Masked pad tokens put in front of every sequence.",
                                     rich_help_panel=opt.SHARED)] = 4,
    **flags: Any,
) -> None:
    """Show which schemes give left-padded tokens the same outputs, with naive and mask-derived position ids.

    \b
    Example: posemb padding --schemes learned,rope --pad 8 --seq-len 16
    Example: posemb padding Llama-3.1-8B/config.json --pad 64
    Example: posemb padding Qwen/Qwen2.5-0.5B   (from the Hugging Face cache)
    """
    from posemb_cli.commands.padding.run import padding_command

    chosen = opt.command_flags(context, {**flags, "model": model, "schemes": schemes, "pad": pad})
    with run_progress("left padding") as progress:
        report = padding_command(chosen, progress=progress)
    emit(report, chosen["json"])
