"""`posemb heads`: which RoPE frequencies a trained model's query and key weights use, head by head."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands.real_inputs import check_plot_flag
from posemb_cli.cli.output import emit, run_progress


@opt.takes(opt.PICTURE_FLAGS, opt.PLOT_FLAGS, opt.OUTPUT_FLAGS, skip=("pictures",))
def heads(
    context: typer.Context,
    model: Annotated[str | None, typer.Argument(
        metavar="MODEL", show_default=False,
        help="A RoPE model with its weights: a model directory, a .safetensors/.bin file with its config.json "
             "beside it, a .gguf file, a Hugging Face id in the local cache (org/name, @revision) or ollama:NAME.")] \
        = None,
    checkpoint: Annotated[str | None, typer.Option(
        "--checkpoint", metavar="PATH", show_default=False, rich_help_panel=opt.REAL,
        help="A RoPE model's weights: .safetensors (or a sharded directory) or .bin with its config.json beside "
             "it, or a .gguf file.")] = None,
    distances: Annotated[str | None, typer.Option(
        "--distances", metavar="D,D,...", show_default=False, rich_help_panel=opt.SHARED,
        help="Distances of the kernel; default 0, 1, 2, 4, ... up to the model's context.")] = None,
    top: Annotated[int, typer.Option("--top", rich_help_panel=opt.OUTPUT,
                                     help="Heads listed as having the most weight on high-frequency pairs, and on "
                                          "pairs beyond the critical pair.")] = 5,
    **flags: Any,
) -> None:
    """Show which RoPE frequencies each head's query and key weights use: pair shares, kernel, labels.

    \b
    Example: posemb heads SmolLM2-135M-Instruct.Q4_1.gguf
    Example: posemb heads meta-llama/Llama-3.1-8B --distances 0,1,8,4096 --json
    """
    from posemb_cli.commands.heads.run import heads_command

    chosen = opt.command_flags(context, {**flags, "model": model, "checkpoint": checkpoint, "distances": distances,
                                         "top": top})
    plot = chosen["plot"]
    check_plot_flag(plot)
    with run_progress("reading the model") as progress:
        report = heads_command(chosen, progress=progress)
    if plot is not None:
        from posemb_cli.commands.heads.plot import write_heads_plot

        write_heads_plot(plot, report)
    emit(report, chosen["json"])
