"""What `posemb precision` is asked, checked once: a real model's RoPE, or a formula scheme built from flags."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags, refuse_scaling_without_factor
from posemb_cli.request.words import flag_of

if TYPE_CHECKING:
    from posemb_cli.core.settings import EmbeddingConfig
    from posemb_cli.sources.naming.model_file import ModelFile

_ROPE_FLAGS = ("head_dim", "rope_scaling", "rope_factor", "original_ctx", "beta_fast", "beta_slow",
               "low_freq_factor", "high_freq_factor")

__all__ = ["PrecisionRequest", "precision_request"]


@dataclass(frozen=True)
class PrecisionRequest:
    """``posemb precision``'s request, every value checked.

    Attributes:
        model: MODEL, ``--config`` or ``--checkpoint`` resolved; None for a scheme built from flags.
        scheme: rope or sinusoidal. dtypes: the dtypes measured.
        config: the built scheme's settled settings (None for a model, whose own settings are read).
    """

    model: ModelFile | None
    scheme: str
    dtypes: tuple[str, ...]
    config: EmbeddingConfig | None


def precision_request(flags: Flags) -> PrecisionRequest:
    """The request ``flags`` make, every value checked once (PosembError, exit 2, naming the flag or the file)."""
    from posemb_cli.request.model import model_flags
    from posemb_cli.run.models.model_source import speaking_of

    flags, named = model_flags(flags)
    with speaking_of(named):
        return _checked(flags, named)


def _checked(flags: Flags, named: ModelFile | None) -> PrecisionRequest:
    from posemb_cli.commands.precision.measure import PRECISION_SCHEMES, parse_dtypes
    from posemb_cli.core.settings import EmbeddingConfig
    from posemb_cli.run.config import require_finite, require_positive_int, with_position_settings
    from posemb_cli.run.models.model_source import said

    scheme = flags["scheme"]
    if scheme not in PRECISION_SCHEMES:
        raise PosembError(f"--scheme {scheme!r}: precision measures {' or '.join(PRECISION_SCHEMES)}")
    dim, ctx, base = flags["dim"], flags["ctx"], flags["base"]
    model_config, checkpoint = flags["model_config"], flags["checkpoint"]
    names = tuple(parse_dtypes(flags["dtypes"]))
    typed = [name for name in _ROPE_FLAGS if flags.given(name)]
    if model_config is not None or checkpoint is not None:
        if model_config is not None and checkpoint is not None:
            raise PosembError("--checkpoint and --config cannot be combined: give one model")
        assert named is not None  # one of the two was given
        for name in ("dim", "ctx", "base", "scheme", *typed):
            if flags.given(name):
                flag = flag_of(name)
                raise PosembError(f"{flag} conflicts with {said(named, named.path)}, which sets it; leave {flag} out")
        return PrecisionRequest(model=named, scheme=scheme, dtypes=names, config=None)
    require_positive_int("--dim", dim)
    require_positive_int("--ctx", ctx)
    if ctx < 2:
        raise PosembError(f"--ctx must be at least 2: a collapse compares neighbouring positions, got {ctx}")
    require_finite("--base", base)
    if base <= 1:
        raise PosembError(f"--base must be above 1, got {base!r}")
    if scheme != "rope" and typed:
        flag = flag_of(typed[0])
        raise PosembError(f"{flag} applies to --scheme rope only")
    refuse_scaling_without_factor(flags)
    config = with_position_settings(EmbeddingConfig(dim=dim, ctx=ctx, base=float(base)), schemes=(scheme,),
                                    **{name: flags[name] for name in _ROPE_FLAGS})
    if scheme != "rope":
        config = dataclasses.replace(config, head_dim=None)
    return PrecisionRequest(model=None, scheme=scheme, dtypes=names, config=config)
