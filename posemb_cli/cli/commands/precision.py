"""`posemb precision`: a frequency position signal in each dtype, native and cast, against float64."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import emit, run_progress

_PRECISION_SKIP = ("vocab", "batch", "seq_len", "seed", "device", "dtype", "init_std", "max_offset", "ids", "ctx",
                   "rope_layout", "attention_factor", "heads")


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.CONFIG_FLAGS, opt.OUTPUT_FLAGS,
           skip=(*_PRECISION_SKIP, "key", "position_offset"))
def precision(
    context: typer.Context,
    model: opt.ModelArgument = None,
    scheme: Annotated[str, typer.Option("--scheme", help="rope or sinusoidal.", rich_help_panel=opt.SHARED)] = "rope",
    dtypes: Annotated[str, typer.Option("--dtypes", help="Comma list of dtypes to measure.",
                                        rich_help_panel=opt.SHARED)] = "float32,bfloat16,float16",
    ctx: Annotated[int, typer.Option("--ctx", "-c", help="Positions measured: every p below ctx.",
                                     rich_help_panel=opt.SHARED)] = 8192,
    **flags: Any,
) -> None:
    """Show where positions collapse and how far phases drift when the signal is held in a low-precision dtype.

    \b
    Example: posemb precision --scheme rope --dim 128 --ctx 8192
    Example: posemb precision Llama-3.1-8B/config.json --dtypes bfloat16
    Example: posemb precision ollama:gemma3:270m
    """
    from posemb_cli.commands.precision.run import precision_command

    chosen = opt.command_flags(context, {**flags, "model": model, "scheme": scheme, "dtypes": dtypes, "ctx": ctx})
    with run_progress("precision") as progress:
        report = precision_command(chosen, progress=progress)
    emit(report, chosen["json"])
