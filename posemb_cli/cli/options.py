"""Every option, declared once: its flag, help, help panel, default and the schemes that read it.

Defaults come from one object, ``EmbeddingConfig()``. A command lists the
groups it takes with ``@takes(...)``; the group's options join the command's
signature (Typer reads them from there) and reach the body as ``**flags``.
No torch here: ``--help`` stays instant.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, TypeVar

import typer

from posemb_cli.core.dtypes import DTYPES
from posemb_cli.core.schemes import scheme_names
from posemb_cli.core.settings import SCALING_KINDS, EmbeddingConfig
from posemb_cli.run.command_flags import Flags

DEFAULTS = EmbeddingConfig()

SHARED, POSITION, REAL, OUTPUT = "Shared", "RoPE and ALiBi", "Real models", "Output"

Dtype = Enum("Dtype", {name: name for name in DTYPES}, type=str)  # type: ignore[misc]
RopeLayout = Enum("RopeLayout", {"interleaved": "interleaved", "half": "half"}, type=str)
RopeScalingKind = Enum("RopeScalingKind", {kind: kind for kind in SCALING_KINDS}, type=str)  # type: ignore[misc]
SchemeName = Enum("SchemeName", {name: name for name in scheme_names()}, type=str)  # type: ignore[misc]


@dataclass(frozen=True)
class Flag:
    """One option: its parameter name, Annotated type and default (the schemes that read it: ``READ_BY``)."""

    name: str
    annotation: Any
    default: Any

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


def _option(*names: str, panel: str, **settings: Any) -> typer.models.OptionInfo:
    return typer.Option(*names, rich_help_panel=panel, **settings)


SHARED_FLAGS = (
    Flag("dim", Annotated[int, _option("--dim", "-d", panel=SHARED, help="Model dimension D.")], DEFAULTS.dim),
    Flag("ctx", Annotated[int, _option("--ctx", "-c", panel=SHARED,
                                       help="Max context length L: rows of a positional table.")], DEFAULTS.ctx),
    Flag("vocab", Annotated[int, _option("--vocab", panel=SHARED, help="Vocabulary size V: rows of the token table.")],
         DEFAULTS.vocab),
    Flag("batch", Annotated[int, _option("--batch", "-b", panel=SHARED, help="Batch size B of the random batch.")],
         DEFAULTS.batch),
    Flag("seq_len", Annotated[int | None, _option(
        "--seq-len", "-t", panel=SHARED, show_default=False,
        help="Sequence length T of the random batch; default: min(ctx, 128).")], None),
    Flag("seed", Annotated[int, _option("--seed", panel=SHARED, help="Seed of every random draw.")], DEFAULTS.seed),
    Flag("device", Annotated[str, _option("--device", panel=SHARED, metavar="auto|cpu|cuda|cuda:N",
                                          help="auto takes CUDA when present.")], DEFAULTS.device),
    Flag("dtype", Annotated[Dtype, _option("--dtype", panel=SHARED, help="Dtype of the tables.")],
         Dtype(DEFAULTS.dtype)),
    Flag("base", Annotated[float, _option("--base", panel=SHARED, help="Base of the sinusoidal and RoPE frequencies.")],
         DEFAULTS.base),
    Flag("init_std", Annotated[float, _option(
        "--init-std", panel=SHARED, help="Std of the N(0, std^2) initial rows of token and learned tables.")],
         DEFAULTS.init_std),
    Flag("max_offset", Annotated[int, _option("--max-offset", "-k", panel=SHARED,
                                              help="Largest offset k of the neighbour similarity.")],
         DEFAULTS.max_offset),
    Flag("ids", Annotated[str | None, _option(
        "--ids", panel=SHARED, show_default=False, metavar="PATH|-",
        help="Token ids: a JSON list of lists or an .npy int array; '-' reads stdin. Sets B and T.")], None),
)

COVERAGE_FLAGS = (
    Flag("full", Annotated[bool, _option(
        "--full", panel=SHARED,
        help="Measure every position at any context. Without it, above 1,048,576 positions rope, sinusoidal "
             "and alibi are measured over an even sample of 1,048,576 positions (JSON: coverage).")], False),
)

POSITION_FLAGS = (
    Flag("head_dim", Annotated[int | None, _option(
        "--head-dim", panel=POSITION, show_default=False,
        help="RoPE head size, even, dividing --dim; default: --dim.")], None),
    Flag("rope_layout", Annotated[RopeLayout, _option(
        "--rope-layout", panel=POSITION,
        help="RoPE pairs: interleaved (2i, 2i+1; RoFormer) or half (i, i+d/2; GPT-NeoX, Llama).")],
         RopeLayout(DEFAULTS.rope_layout)),
    Flag("rope_scaling", Annotated[RopeScalingKind, _option("--rope-scaling", panel=POSITION,
                                                            help="RoPE context extension.")],
         RopeScalingKind(DEFAULTS.rope_scaling)),
    Flag("rope_factor", Annotated[float, _option(
        "--rope-factor", panel=POSITION, help="Context extension factor, 1 or more; required with --rope-scaling.")],
         DEFAULTS.rope_factor),
    Flag("original_ctx", Annotated[int | None, _option(
        "--original-ctx", panel=POSITION, show_default=False,
        help="Training context before extension (dynamic, yarn, llama3), at most --ctx; default: ctx / factor.")],
         None),
    Flag("beta_fast", Annotated[float, _option("--beta-fast", panel=POSITION,
                                               help="YaRN: rotations where the ramp starts.")],
         DEFAULTS.beta_fast),
    Flag("beta_slow", Annotated[float, _option("--beta-slow", panel=POSITION,
                                               help="YaRN: rotations where the ramp ends.")],
         DEFAULTS.beta_slow),
    Flag("low_freq_factor", Annotated[float, _option(
        "--low-freq-factor", panel=POSITION,
        help="Llama 3: wavelengths above original-ctx / this are divided by the factor.")],
         DEFAULTS.low_freq_factor),
    Flag("high_freq_factor", Annotated[float, _option(
        "--high-freq-factor", panel=POSITION, help="Llama 3: wavelengths below original-ctx / this are kept.")],
         DEFAULTS.high_freq_factor),
    Flag("attention_factor", Annotated[float | None, _option(
        "--attention-factor", panel=POSITION, show_default=False,
        help="Multiplier of cos and sin; default: YaRN 0.1 ln(factor) + 1, else 1.")], None),
    Flag("heads", Annotated[int, _option("--heads", panel=POSITION,
                                         help="ALiBi heads, dividing --dim; one slope each.")],
         DEFAULTS.heads),
)

MODEL_HELP = ("A config.json, a model directory, a .gguf file, a .safetensors/.bin file with its config.json beside "
              "it, a Hugging Face id in the local cache (org/name, @revision) or ollama:NAME. With weights it is read "
              "as --checkpoint reads it, a config alone as --config.")
ModelArgument = Annotated[str | None, typer.Argument(metavar="MODEL", show_default=False, help=MODEL_HELP)]

CHECKPOINT_FLAGS = (
    Flag("checkpoint", Annotated[str | None, _option(
        "--checkpoint", panel=REAL, show_default=False, metavar="PATH",
        help="A real model's position table: .safetensors, .bin/.pt state dict, .npy/.npz, .gguf, or a model "
             "directory. "
             "Its shape sets --dim, --ctx and (with a token table) --vocab.")], None),
    Flag("key", Annotated[str | None, _option(
        "--key", panel=REAL, show_default=False,
        help="The tensor to read from --checkpoint, when its name is not a known one.")], None),
    Flag("position_offset", Annotated[int | None, _option(
        "--position-offset", panel=REAL, show_default=False,
        help="Leading rows of the --checkpoint table that no position uses; "
             "default: the model family's, e.g. 2 for RoBERTa and OPT.")], None),
)
CONFIG_FLAGS = (
    Flag("model_config", Annotated[str | None, _option(
        "--config", panel=REAL, show_default=False, metavar="PATH",
        help="A Hugging Face style config.json (or its directory) or a .gguf file: inspect that model's position "
             "setup; RoPE needs no weights.")], None),
)
PictureSize = Enum("PictureSize", {"screen": "screen", "full": "full"}, type=str)
PICTURE_FLAGS = (
    Flag("no_plot", Annotated[bool, _option("--no-plot", panel=OUTPUT,
                                            help="Leave out the terminal pictures (heatmap, decay curves).")], False),
    Flag("pictures", Annotated[PictureSize, _option(
        "--pictures", panel=OUTPUT,
        help="screen: the pictures fit one terminal screen; full: the heatmap as wide as the terminal.")],
         PictureSize("screen")),
)
PLOT_FLAGS = (
    Flag("plot", Annotated[str | None, _option(
        "--plot", panel=OUTPUT, show_default=False, metavar="FILE",
        help="Also write a figure to FILE.png or FILE.svg (needs: pip install 'posemb[plot]').")], None),
)
OUTPUT_FLAGS = (
    Flag("json", Annotated[bool, _option("--json", panel=OUTPUT,
                                         help="Print one JSON document on stdout instead of tables.")], False),
    Flag("debug", Annotated[bool, _option("--debug", panel=OUTPUT,
                                          help="Show the traceback of an unexpected failure.")], False),
)

_Command = TypeVar("_Command", bound=Callable[..., None])


def takes(*groups: tuple[Flag, ...], skip: tuple[str, ...] = ()) -> Callable[[_Command], _Command]:
    """Add the options of ``groups`` to a command's signature; they reach its body as keyword arguments.

    The command declares only its own options, then ``**flags``.
    """

    def add(command: _Command) -> _Command:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        added = [inspect.Parameter(flag.name, inspect.Parameter.KEYWORD_ONLY, default=flag.default,
                                   annotation=flag.annotation)
                 for group in groups for flag in group if flag.name not in skip]
        command.__signature__ = signature.replace(parameters=own + added)  # type: ignore[attr-defined]
        return command

    return add


def plain(flags: dict[str, Any]) -> dict[str, Any]:
    """The flag values with Enum members turned into their strings."""
    return {name: value.value if isinstance(value, Enum) else value for name, value in flags.items()}


def typed(context: typer.Context, name: str) -> bool:
    """Whether the user gave the option ``name`` (on the command line or in the environment)."""
    where = context.get_parameter_source(name)
    return where is not None and where.name in ("COMMANDLINE", "ENVIRONMENT")


def command_flags(context: typer.Context, values: dict[str, Any]) -> Flags:
    """A command's flag values (choices as strings) and those the user gave, for its core in ``run.command_flags``."""
    given = {name: getattr(value, "value", value) for name, value in context.params.items() if typed(context, name)}
    return Flags(values=plain(values), typed=given)
