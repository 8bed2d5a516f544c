"""The option groups several commands share, each option declared once with its default from ``EmbeddingConfig()``.

A command lists the groups it takes in its ``options.py`` (``without`` drops the ones it
declares itself or does not read). No torch here: ``--help`` stays instant.
"""

from __future__ import annotations

from posemb_cli.core.dtypes import DTYPES
from posemb_cli.core.settings import SCALING_KINDS, EmbeddingConfig
from posemb_cli.request.option import Option

__all__ = ["CHECKPOINT", "CONFIG", "COVERAGE", "DEFAULTS", "MODEL", "MODEL_HELP", "OUTPUT", "OUTPUT_PANEL", "PICTURES",
           "PLOT", "POSITION", "POSITION_PANEL", "REAL_PANEL", "SHARED", "SHARED_PANEL"]

DEFAULTS = EmbeddingConfig()
SHARED_PANEL, POSITION_PANEL, REAL_PANEL, OUTPUT_PANEL = "Shared", "RoPE and ALiBi", "Real models", "Output"

SHARED = (
    Option("dim", ("--dim", "-d"), int, DEFAULTS.dim, panel=SHARED_PANEL, help="Model dimension D."),
    Option("ctx", ("--ctx", "-c"), int, DEFAULTS.ctx, panel=SHARED_PANEL,
           help="Max context length L: rows of a positional table."),
    Option("vocab", ("--vocab",), int, DEFAULTS.vocab, panel=SHARED_PANEL,
           help="Vocabulary size V: rows of the token table."),
    Option("batch", ("--batch", "-b"), int, DEFAULTS.batch, panel=SHARED_PANEL,
           help="Batch size B of the random batch."),
    Option("seq_len", ("--seq-len", "-t"), int | None, None, panel=SHARED_PANEL, show_default=False,
           help="Sequence length T of the random batch; default: min(ctx, 128)."),
    Option("seed", ("--seed",), int, DEFAULTS.seed, panel=SHARED_PANEL, help="Seed of every random draw."),
    Option("device", ("--device",), str, DEFAULTS.device, panel=SHARED_PANEL, metavar="auto|cpu|cuda|cuda:N",
           help="auto takes CUDA when present."),
    Option("dtype", ("--dtype",), str, DEFAULTS.dtype, choices=tuple(DTYPES), panel=SHARED_PANEL,
           help="Dtype of the tables."),
    Option("base", ("--base",), float, DEFAULTS.base, panel=SHARED_PANEL,
           help="Base of the sinusoidal and RoPE frequencies."),
    Option("init_std", ("--init-std",), float, DEFAULTS.init_std, panel=SHARED_PANEL,
           help="Std of the N(0, std^2) initial rows of token and learned tables."),
    Option("max_offset", ("--max-offset", "-k"), int, DEFAULTS.max_offset, panel=SHARED_PANEL,
           help="Largest offset k of the neighbour similarity."),
    Option("ids", ("--ids",), str | None, None, panel=SHARED_PANEL, show_default=False, metavar="PATH|-",
           help="Token ids: a JSON list of lists or an .npy int array; '-' reads stdin. Sets B and T."),
)

COVERAGE = (
    Option("full", ("--full",), bool, False, panel=SHARED_PANEL,
           help="Measure every position at any context. Without it, above 1,048,576 positions rope, sinusoidal "
                "and alibi are measured over an even sample of 1,048,576 positions (JSON: coverage)."),
)

POSITION = (
    Option("head_dim", ("--head-dim",), int | None, None, panel=POSITION_PANEL, show_default=False,
           help="RoPE head size, even, dividing --dim; default: --dim."),
    Option("rope_layout", ("--rope-layout",), str, DEFAULTS.rope_layout, choices=("interleaved", "half"),
           panel=POSITION_PANEL,
           help="RoPE pairs: interleaved (2i, 2i+1; RoFormer) or half (i, i+d/2; GPT-NeoX, Llama)."),
    Option("rope_scaling", ("--rope-scaling",), str, DEFAULTS.rope_scaling, choices=tuple(SCALING_KINDS),
           panel=POSITION_PANEL, help="RoPE context extension."),
    Option("rope_factor", ("--rope-factor",), float, DEFAULTS.rope_factor, panel=POSITION_PANEL,
           help="Context extension factor, 1 or more; required with --rope-scaling."),
    Option("original_ctx", ("--original-ctx",), int | None, None, panel=POSITION_PANEL, show_default=False,
           help="Training context before extension (dynamic, yarn, llama3), at most --ctx; default: ctx / factor."),
    Option("beta_fast", ("--beta-fast",), float, DEFAULTS.beta_fast, panel=POSITION_PANEL,
           help="YaRN: rotations where the ramp starts."),
    Option("beta_slow", ("--beta-slow",), float, DEFAULTS.beta_slow, panel=POSITION_PANEL,
           help="YaRN: rotations where the ramp ends."),
    Option("low_freq_factor", ("--low-freq-factor",), float, DEFAULTS.low_freq_factor, panel=POSITION_PANEL,
           help="Llama 3: wavelengths above original-ctx / this are divided by the factor."),
    Option("high_freq_factor", ("--high-freq-factor",), float, DEFAULTS.high_freq_factor, panel=POSITION_PANEL,
           help="Llama 3: wavelengths below original-ctx / this are kept."),
    Option("attention_factor", ("--attention-factor",), float | None, None, panel=POSITION_PANEL,
           show_default=False, help="Multiplier of cos and sin; default: YaRN 0.1 ln(factor) + 1, else 1."),
    Option("heads", ("--heads",), int, DEFAULTS.heads, panel=POSITION_PANEL,
           help="ALiBi heads, dividing --dim; one slope each."),
)

MODEL_HELP = ("A config.json, a model directory, a .gguf file, a .safetensors/.bin file with its config.json beside "
              "it, a Hugging Face id in the local cache (org/name, @revision) or ollama:NAME. With weights it is read "
              "as --checkpoint reads it, a config alone as --config.")
MODEL = Option("model", (), str | None, None, argument=True, metavar="MODEL", show_default=False, help=MODEL_HELP)

CHECKPOINT = (
    Option("checkpoint", ("--checkpoint",), str | None, None, panel=REAL_PANEL, show_default=False, metavar="PATH",
           help="A real model's position table: .safetensors, .bin/.pt state dict, .npy/.npz, .gguf, or a model "
                "directory. Its shape sets --dim, --ctx and (with a token table) --vocab."),
    Option("key", ("--key",), str | None, None, panel=REAL_PANEL, show_default=False,
           help="The tensor to read from --checkpoint, when its name is not a known one."),
    Option("position_offset", ("--position-offset",), int | None, None, panel=REAL_PANEL, show_default=False,
           help="Leading rows of the --checkpoint table that no position uses; "
                "default: the model family's, e.g. 2 for RoBERTa and OPT."),
)
CONFIG = (
    Option("model_config", ("--config",), str | None, None, panel=REAL_PANEL, show_default=False, metavar="PATH",
           help="A Hugging Face style config.json (or its directory) or a .gguf file: inspect that model's position "
                "setup; RoPE needs no weights."),
)
PICTURES = (
    Option("no_plot", ("--no-plot",), bool, False, panel=OUTPUT_PANEL,
           help="Leave out the terminal pictures (heatmap, decay curves)."),
    Option("pictures", ("--pictures",), str, "screen", choices=("screen", "full"), panel=OUTPUT_PANEL,
           help="screen: the pictures fit one terminal screen; full: the heatmap as wide as the terminal."),
)
PLOT = (
    Option("plot", ("--plot",), str | None, None, panel=OUTPUT_PANEL, show_default=False, metavar="FILE",
           help="Also write a figure to FILE.png or FILE.svg (needs: pip install 'posemb[plot]')."),
)
OUTPUT = (
    Option("json", ("--json",), bool, False, panel=OUTPUT_PANEL, cli_only=True,
           help="Print one JSON document on stdout instead of tables."),
    Option("debug", ("--debug",), bool, False, panel=OUTPUT_PANEL, cli_only=True,
           help="Show the traceback of an unexpected failure."),
)
