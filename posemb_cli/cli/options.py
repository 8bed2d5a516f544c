"""Flags shared by the subcommands, as Annotated types (Typer reads them; no torch here).

Values are checked by ``config.make_config`` so every bad value gets the
same one-line message, whichever command received it.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

Dim = Annotated[int, typer.Option("--dim", "-d", help="Model dimension D.")]
Ctx = Annotated[int, typer.Option("--ctx", "-c", help="Max context length L: rows of a positional table.")]
Vocab = Annotated[int, typer.Option("--vocab", help="Vocabulary size V: rows of the token table.")]
Batch = Annotated[int, typer.Option("--batch", "-b", help="Batch size B of the random batch.")]
SeqLen = Annotated[Optional[int], typer.Option(
    "--seq-len", "-t", help="Sequence length T of the random batch  [default: min(ctx, 128)]", show_default=False)]
Seed = Annotated[int, typer.Option("--seed", help="Seed of every random draw.")]
Device = Annotated[str, typer.Option("--device", help="auto, cpu, cuda or cuda:N; auto takes CUDA when present.")]
Dtype = Annotated[str, typer.Option("--dtype", help="float32, float64, float16 or bfloat16.")]
Base = Annotated[float, typer.Option("--base", help="Base of the sinusoidal frequencies.")]
InitStd = Annotated[float, typer.Option("--init-std", help="Std of the N(0, std^2) initial rows of learned tables.")]
MaxOffset = Annotated[int, typer.Option("--max-offset", "-k", help="Largest offset k of the neighbour similarity.")]
Ids = Annotated[Optional[str], typer.Option(
    "--ids", help="Token ids: a JSON list of lists or an .npy int array; '-' reads stdin. Sets B and T.",
    show_default=False)]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout instead of tables.")]
Debug = Annotated[bool, typer.Option("--debug", help="Show the traceback of an unexpected failure.")]
Checkpoint = Annotated[Optional[str], typer.Option(
    "--checkpoint", help="A real model's position table: .safetensors, .bin/.pt state dict, .npy/.npz, .gguf, "
    "or a model "
    "directory. Its shape sets --dim, --ctx and (with a token table) --vocab.", show_default=False)]
Key = Annotated[Optional[str], typer.Option(
    "--key", help="The tensor to read from --checkpoint, when its name is not a known one.", show_default=False)]
PositionOffset = Annotated[Optional[int], typer.Option(
    "--position-offset", help="Leading rows of the --checkpoint table that no position uses  "
    "[default: the model family's, e.g. 2 for RoBERTa and OPT]", show_default=False)]
NoPlot = Annotated[bool, typer.Option("--no-plot", help="Leave out the terminal pictures (heatmap, decay curves).")]
Plot = Annotated[Optional[str], typer.Option(
    "--plot", help="Also write a figure to FILE.png or FILE.svg (needs: pip install 'posemb[plot]').",
    show_default=False)]
ModelConfig = Annotated[Optional[str], typer.Option(
    "--config", help="A Hugging Face style config.json (or its directory) or a .gguf file: inspect that model's RoPE, "
    "with its head size, rope_theta, rope_scaling and context; no weights needed.", show_default=False)]
