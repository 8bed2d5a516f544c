"""`posemb extend`: which RoPE scaling, which factor, to run a model at a length past the one it was trained at."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands.real_inputs import check_plot_flag
from posemb_cli.cli.output import emit, run_progress

MEASURE = "Measure on the model"


@opt.takes(opt.PLOT_FLAGS, opt.OUTPUT_FLAGS)
def extend(
    context: typer.Context,
    model: Annotated[str, typer.Argument(
        metavar="MODEL", show_default=False,
        help="A config.json, a model directory, a .gguf file, a .safetensors/.bin file with its config.json beside "
             "it, a Hugging Face id in the local cache (org/name, @revision) or ollama:NAME. With weights, each pair "
             "is weighted by the heads' query and key weights.")],
    to: Annotated[int, typer.Option(
        "--to", metavar="L", show_default=False, rich_help_panel=opt.REAL,
        help="The target length L, past the model's trained length.")],
    scalings: Annotated[str | None, typer.Option(
        "--scalings", metavar="NAME,...", show_default=False, rich_help_panel=opt.REAL,
        help="Candidates among none, linear, ntk, dynamic, yarn, llama3, longrope; default: every one the model "
             "can load (longrope where it carries factors).")] = None,
    factor: Annotated[float | None, typer.Option(
        "--factor", show_default=False, rich_help_panel=opt.REAL,
        help="The factor every candidate takes; default: the one that reaches L (dynamic: the one whose stretch "
             "at L does).")] = None,
    text: Annotated[list[str] | None, typer.Option(
        "--text", metavar="FILE", show_default=False, rich_help_panel=MEASURE,
        help="Measure each candidate on the model: the loss at every position of the first L tokens of this UTF-8 "
             "text under the model's own tokenizer. Repeat --text for more documents, joined by its end-of-sequence "
             "token. Needs: pip install 'posemb[measure]'.")] = None,
    ids: Annotated[str | None, typer.Option(
        "--ids", metavar="FILE", show_default=False, rich_help_panel=MEASURE,
        help="Measure on token ids instead of a text: one row of at least L ids, .npy or JSON ('-' reads stdin).")]
        = None,
    device: Annotated[str, typer.Option(
        "--device", metavar="auto|cpu|cuda|cuda:N", rich_help_panel=MEASURE,
        help="Where the measured model runs; auto: CUDA when present (a model larger than one GPU spread over "
             "all of them by accelerate), else the CPU. Only with --text or --ids.")] = "auto",
    dtype: Annotated[opt.Dtype, typer.Option(
        "--dtype", rich_help_panel=MEASURE, help="The dtype the measured model runs in. Only with --text or --ids.")]
        = opt.Dtype("float32"),
    top: Annotated[int, typer.Option("--top", rich_help_panel=opt.OUTPUT,
                                     help="Heads listed as most at risk under each candidate.")] = 3,
    no_plot: Annotated[bool, typer.Option(
        "--no-plot", rich_help_panel=opt.OUTPUT,
        help="Leave out the terminal pictures: the strips of pairs coloured by class and the measured loss "
             "curves.")] = False,
    **flags: Any,
) -> None:
    """Rank RoPE scalings for running a model at --to L positions, and give the config block to paste.

    With --text (or --ids), also measure each candidate on the model at L and set that ranking beside the
    predicted one.

    \b
    Example: posemb extend SmolLM2-135M-Instruct.Q4_1.gguf --to 32768
    Example: posemb extend Llama-3.1-8B/config.json --to 524288 --scalings yarn,llama3 --json
    Example: posemb extend SmolLM2-135M-Instruct.Q4_1.gguf --to 16384 --text book.txt --plot loss.png
    """
    from posemb_cli.commands.extend.run import extend_command

    chosen = opt.command_flags(context, {**flags, "model": model, "to": to, "scalings": scalings, "factor": factor,
                                         "text": text, "ids": ids, "device": device, "dtype": dtype, "top": top,
                                         "no_plot": no_plot})
    plot = chosen["plot"]
    check_plot_flag(plot)
    with run_progress("reading the model") as progress:
        report = extend_command(chosen, progress=progress)
    if plot is not None:
        from posemb_cli.commands.extend.plot import write_extend_plot

        write_extend_plot(plot, report)
    emit(report, chosen["json"])
