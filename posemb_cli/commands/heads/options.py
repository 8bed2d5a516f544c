"""`posemb heads`'s options: a RoPE model with its weights, the kernel's distances, the heads listed."""

from __future__ import annotations

from posemb_cli.request import groups
from posemb_cli.request.option import Option, without

OPTIONS = (
    Option("model", (), str | None, None, argument=True, metavar="MODEL", show_default=False,
           help="A RoPE model with its weights: a model directory, a .safetensors/.bin file with its config.json "
                "beside it, a .gguf file, a Hugging Face id in the local cache (org/name, @revision) or ollama:NAME."),
    Option("checkpoint", ("--checkpoint",), str | None, None, metavar="PATH", show_default=False,
           panel=groups.REAL_PANEL,
           help="A RoPE model's weights: .safetensors (or a sharded directory) or .bin with its config.json beside "
                "it, or a .gguf file."),
    Option("distances", ("--distances",), str | None, None, items=int, metavar="D,D,...", show_default=False,
           panel=groups.SHARED_PANEL,
           help="Distances of the kernel; default 0, 1, 2, 4, ... up to the model's context."),
    Option("top", ("--top",), int, 5, panel=groups.OUTPUT_PANEL,
           help="Heads listed as having the most weight on high-frequency pairs, and on pairs beyond the critical "
                "pair."),
    *without(groups.PICTURES, "pictures"), *groups.PLOT, *groups.OUTPUT,
)
