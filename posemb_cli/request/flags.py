"""Each command as one function from its flags to its report, called by the CLI and by the Python API alike.

A command's core checks its flags (every refusal a ``PosembError`` naming the flag),
reads a real model where one is named, runs, and returns the report; it never prints.
The CLI parses the command line into ``Flags`` and renders the report; ``posemb_cli.api``
builds the same ``Flags`` from keyword arguments, so both refuse the same input with the
same message and produce the same report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from posemb_cli.errors import PosembError
from posemb_cli.request.words import flag_of

if TYPE_CHECKING:
    from posemb_cli.core.settings import EmbeddingConfig

_ROPE = ("rope",)
# The flags only some schemes read; a flag the user gives that no chosen scheme reads is refused.
READ_BY: dict[str, tuple[str, ...]] = {
    "base": ("sinusoidal", "rope"), "head_dim": _ROPE, "rope_layout": _ROPE, "rope_scaling": _ROPE,
    "rope_factor": _ROPE, "original_ctx": _ROPE, "beta_fast": _ROPE, "beta_slow": _ROPE, "low_freq_factor": _ROPE,
    "high_freq_factor": _ROPE, "attention_factor": _ROPE, "heads": ("alibi",),
    "full": ("sinusoidal", "rope", "alibi", "none"),
}
# Why a scheme does not read a flag, where the generic advice would mislead.
_WHY_NOT = {"full": "stored tables (learned, a checkpoint's) are measured at every position already"}

__all__ = ["READ_BY", "Flags", "checked_config", "config_from_flags", "refuse_unread", "refuse_scaling_without_factor"]


@dataclass(frozen=True)
class Flags:
    """A command's flag values (every one, defaults included; choices as strings) and those the user gave.

    Attributes:
        values: parameter name -> value.
        typed: parameter name -> value, for the flags given on the command line, in the environment, or as
            keyword arguments of the API.
    """

    values: Mapping[str, Any]
    typed: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def given(self, name: str) -> bool:
        return name in self.typed

    def replace(self, values: Mapping[str, Any]) -> Flags:
        return Flags(values=dict(values), typed=self.typed)


def refuse_unread(flags: Flags, schemes: tuple[str, ...]) -> None:
    """Refuse a flag the user gave that none of the chosen schemes reads, naming both."""
    for name, readers in READ_BY.items():
        if not flags.given(name) or any(scheme in readers for scheme in schemes):
            continue
        flag = flag_of(name)
        if name in _WHY_NOT:
            raise PosembError(f"{flag} is read only by {', '.join(readers)} (signals computed from a formula): "
                              f"{_WHY_NOT[name]}; leave {flag} out")
        if schemes == ("checkpoint",):
            raise PosembError(f"{flag} is read only by {' and '.join(readers)}, and --checkpoint gives a stored "
                              f"table that does not read it; leave {flag} out")
        raise PosembError(f"{flag} is read only by {' and '.join(readers)}, and the chosen scheme"
                          f"{'s' if len(schemes) > 1 else ''} {', '.join(schemes)} "
                          f"{'do' if len(schemes) > 1 else 'does'} not read it; "
                          f"add {readers[0]} or leave {flag} out")


def refuse_scaling_without_factor(flags: Flags) -> None:
    """Refuse a RoPE scaling given without its factor: transformers requires one for every kind, and a
    factor of 1 left to its default would be no scaling at all."""
    kind = flags["rope_scaling"]
    if flags.given("rope_scaling") and kind != "none" and not flags.given("rope_factor"):
        raise PosembError(f"--rope-scaling {kind} needs --rope-factor (the context extension factor, 1 or more, "
                          f"e.g. --rope-factor 4)")


_LESSON_FIELDS = ("dim", "ctx", "vocab", "batch", "seq_len", "seed", "device", "dtype", "base", "init_std",
                  "max_offset", "ids", "full")
_POSITION_FIELDS = ("head_dim", "rope_layout", "rope_scaling", "rope_factor", "original_ctx", "beta_fast",
                    "beta_slow", "low_freq_factor", "high_freq_factor", "attention_factor", "heads")

def config_from_flags(flags: Mapping[str, Any], *, schemes: tuple[str, ...]) -> EmbeddingConfig:
    """Check every setting the flags give (absent ones take their defaults) and fill in the effective values.

    Raises:
        PosembError: naming the flag, for the first value that is not allowed.
    """
    from posemb_cli.run.config import make_config, with_position_settings

    config = make_config(**{name: flags[name] for name in _LESSON_FIELDS if name in flags})
    position = {name: flags[name] for name in _POSITION_FIELDS if name in flags}
    return with_position_settings(config, schemes=schemes, **position)


def checked_config(flags: Flags, schemes: tuple[str, ...], values: Mapping[str, Any] | None = None) -> EmbeddingConfig:
    """The settings the schemes run with, every check of a request in its order: each value
    (``config_from_flags``), then a flag no chosen scheme reads, then a scaling without its factor.

    Args:
        values: the values to build from, where a real model has settled some (default: the flags' own).
    """
    config = config_from_flags(flags.values if values is None else values, schemes=schemes)
    refuse_unread(flags, schemes)
    refuse_scaling_without_factor(flags)
    return config
