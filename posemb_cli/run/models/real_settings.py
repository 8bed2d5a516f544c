"""A real model's shape settled into a run's flags: what the file sets wins, a typed flag that disagrees is refused.

The CLI hands over the flag values and which of them the user typed; this module
turns them plus the model (``real_sources.RealModel``) into the flags of the run:
width, context, vocabulary and scheme from the file, heads for ALiBi and T5's
bias, and the refusals that name the file rather than a flag the user never gave.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posemb_cli.errors import PosembError, option
from posemb_cli.run.models.real_models import CHECKPOINT_SCHEME, checkpoint_shape, real_model_shape
from posemb_cli.run.models.real_sources import RealModel

__all__ = ["check_source_flags", "check_source_rows", "refuse_conflicts", "refuse_model_settings", "settle_checkpoint",
           "settle_real_model"]

# The flags whose value a real model's file gives: RoPE's are its own, a sinusoidal table's base is its own.
_ROPE_SETTINGS = ("base", "head_dim", "rope_layout", "rope_scaling", "rope_factor", "original_ctx", "beta_fast",
                  "beta_slow", "low_freq_factor", "high_freq_factor", "attention_factor")
_SCALING_SETTINGS = _ROPE_SETTINGS[3:]


def check_source_flags(*, checkpoint: str | None, key: str | None, position_offset: int | None,
                       model_config: str | None = None) -> None:
    """Refuse flags that make no sense together, before any work is done."""
    if checkpoint is None:
        for flag, value in (("--key", key), ("--position-offset", position_offset)):
            if value is not None:
                raise PosembError(f"{flag} needs --checkpoint PATH (or a MODEL with weights): it picks rows of a "
                                  "checkpoint's table")
    elif model_config is not None:
        raise PosembError("--checkpoint and --config cannot be combined: give a checkpoint (learned table) "
                          "or a config (RoPE), not both")


def refuse_conflicts(typed: Mapping[str, Any], source: str, settled: Mapping[str, Any]) -> None:
    """Refuse a flag the user typed whose value the file settles otherwise.

    Args:
        typed: parameter name -> value, for the flags given on the command line or in the environment.
        source: the file, as the user named it (``--config PATH``, ``MODEL name``).
        settled: parameter name -> the value the file gives it.
    """
    for name, value in settled.items():
        if name in typed and typed[name] != value:
            flag = option(name)  # worded as the user gave it (request.words)
            raise PosembError(f"{flag} {typed[name]} conflicts with {source}, which sets it to {value}; "
                              f"leave {flag} out")


def refuse_model_settings(real: RealModel, typed: Mapping[str, Any]) -> None:
    """Refuse a RoPE flag (or a sinusoidal base) typed for a model whose file sets it: the run would show the
    model's own signal, and the flag would change nothing while seeming to."""
    sets = _ROPE_SETTINGS if real.rope is not None else ("base",) if (
        real.formula is not None and real.formula.scheme == "sinusoidal") else ()
    for name in sets:
        if name in typed:
            flag = option(name)
            advice = ("; to see the model under another scaling: posemb compare MODEL --scalings yarn:4"
                      if name in _SCALING_SETTINGS else "")
            raise PosembError(f"{flag} conflicts with {real.said()}, which sets the model's "
                              f"{'RoPE' if real.rope is not None else 'sinusoidal table'}; leave {flag} out{advice}")


def check_source_rows(source: str, ctx: int, *, max_offset: int, seq_len: int | None) -> None:
    """Refuse --max-offset or --seq-len that the file's ctx cannot hold, naming the file that set ctx (``source``,
    as the user named it; the user typed no --ctx, and a message naming --ctx would point at the wrong flag)."""
    from posemb_cli.run.config import require_positive_int

    require_positive_int("--max-offset", max_offset)
    if seq_len is not None:
        require_positive_int("--seq-len", seq_len)
    if max_offset >= ctx:
        raise PosembError(f"--max-offset {max_offset} must be below the {ctx} positions of {source}; "
                          f"give --max-offset {max(1, ctx - 1)} or less")
    if seq_len is not None and seq_len > ctx:
        raise PosembError(f"--seq-len {seq_len} exceeds the {ctx} positions of {source}")


def _settle(flags: dict, typed: Mapping[str, Any], source: str, settled: dict) -> dict:
    refuse_conflicts(typed, source, settled)
    out = {**flags, **{key: value for key, value in settled.items() if key != "scheme"}}
    check_source_rows(source, out["ctx"], max_offset=out["max_offset"], seq_len=out["seq_len"])
    return out


def settle_real_model(real: RealModel, flags: Mapping[str, Any], typed: Mapping[str, Any]) -> tuple[dict, str]:
    """The run's flags with the model's shape in them, and the scheme it takes: a stored table is its own
    scheme (``checkpoint``: no flag of the formula schemes reaches it), whatever --scheme says.

    Args:
        real: the model, as MODEL, ``--checkpoint`` or ``--config`` named it.
        flags: every flag's value. typed: the flags the user typed, with their values.
    """
    shape = real_model_shape(real, flags["vocab"], vocab_typed="vocab" in typed, ctx=flags["ctx"])
    settled: dict[str, Any] = {"dim": shape["dim"], "ctx": shape["ctx"], "vocab": shape["vocab"]}
    if shape["scheme"] is not None:
        settled["scheme"] = shape["scheme"]
    if real.formula is not None and real.formula.heads is not None:
        settled["heads"] = real.formula.heads
    if real.bias is not None:
        settled["heads"] = real.bias.heads
    if (real.formula is not None and real.formula.ctx is None) or real.bias is not None:
        del settled["ctx"]  # the model states none: --ctx is the user's to give
    if real.vocab is None:
        del settled["vocab"]  # unknown token table: --vocab by hand still works
    return _settle(dict(flags), typed, real.said(), settled), shape["scheme"] or CHECKPOINT_SCHEME


def settle_checkpoint(real: RealModel, flags: Mapping[str, Any], typed: Mapping[str, Any]) -> dict:
    """``compare --checkpoint``: the run's flags with the table's shape (and its vocabulary) in them."""
    loaded = real.loaded
    assert loaded is not None  # compare reads tables only (table_of_checkpoint refused the rest)
    shape = checkpoint_shape(loaded, flags["vocab"])
    settled = {"dim": shape["dim"], "ctx": shape["ctx"], "vocab": real.vocab or shape["vocab"]}
    if real.vocab is None:
        del settled["vocab"]  # unknown token table: --vocab by hand still works
    return _settle(dict(flags), typed, real.said(flag="--checkpoint"), settled)
