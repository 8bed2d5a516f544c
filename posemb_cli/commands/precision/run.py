"""`precision`: a rope or sinusoidal signal held in each dtype, native and cast, against float64."""

from __future__ import annotations

import dataclasses
import os

from posemb_cli.commands.precision.report import PrecisionReport
from posemb_cli.core.progress import Progress, or_silent
from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags, refuse_scaling_without_factor
from posemb_cli.request.model import model_flags
from posemb_cli.run.models.model_source import as_argument, said, speaking_of, with_resolved
from posemb_cli.sources.naming.model_file import ModelFile

_ROPE_FLAGS = ("head_dim", "rope_scaling", "rope_factor", "original_ctx", "beta_fast", "beta_slow",
               "low_freq_factor", "high_freq_factor")

__all__ = ["precision_command"]


def _not_a_formula(model: ModelFile, kind) -> PosembError:
    """Why precision does not measure a model of this kind, naming the kind and the command that does."""
    path = model.path
    if kind.kind in ("alibi", "none"):
        what, advice = "; precision measures the rope and sinusoidal formulas", as_argument(model, path)
    else:
        what = (", which is stored in the weights, not computed; precision measures formula schemes "
                "(rope, sinusoidal)")
        folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
        advice = as_argument(model, folder, flag="--checkpoint")
    return PosembError(f"{said(model, path)}: this model uses {kind.label} ({kind.decided_by}){what}; analyse it "
                       f"with posemb inspect {advice}")


def _rope_model(model: ModelFile):
    """The RoPE model and its JSON ``source``, the model's kind told first (its one reading)."""
    if model.flag == "--config":
        from posemb_cli.sources.model.rope_model import rope_model_of
        from posemb_cli.sources.naming.read import read_model

        reading = read_model(model.path)
        if reading.kind.kind != "rope":
            raise _not_a_formula(model, reading.kind)
        rope = rope_model_of(reading)
        return rope, rope.source()
    from posemb_cli.run.models.real_sources import from_checkpoint

    real = from_checkpoint(model, key=None, position_offset=None)
    if real.rope is None:
        raise _not_a_formula(model, real.kind)
    return real.rope, real.source()


def precision_command(flags: Flags, *, progress: Progress | None = None) -> PrecisionReport:
    flags, named = model_flags(flags)
    with speaking_of(named):
        report = _precision(flags, named, progress)
    return with_resolved(report, named)


def _precision(flags: Flags, named: ModelFile | None, progress: Progress | None) -> PrecisionReport:
    from posemb_cli.commands.precision.measure import (
        PRECISION_SCHEMES,
        parse_dtypes,
        run_model_precision,
        run_precision,
    )
    from posemb_cli.core.settings import EmbeddingConfig
    from posemb_cli.run.config import require_finite, require_positive_int
    from posemb_cli.run.position_config import with_position_settings

    scheme = flags["scheme"]
    if scheme not in PRECISION_SCHEMES:
        raise PosembError(f"--scheme {scheme!r}: precision measures {' or '.join(PRECISION_SCHEMES)}")
    dim, ctx, base = flags["dim"], flags["ctx"], flags["base"]
    model_config, checkpoint = flags["model_config"], flags["checkpoint"]
    names = parse_dtypes(flags["dtypes"])
    typed = [name for name in _ROPE_FLAGS if flags.given(name)]
    if model_config is not None or checkpoint is not None:
        if model_config is not None and checkpoint is not None:
            raise PosembError("--checkpoint and --config cannot be combined: give one model")
        assert named is not None  # one of the two was given
        for name in ("dim", "ctx", "base", "scheme", *typed):
            if flags.given(name):
                flag = "--" + name.replace("_", "-")
                raise PosembError(f"{flag} conflicts with {said(named, named.path)}, which sets it; leave {flag} out")
        model, source = _rope_model(named)
        or_silent(progress).stage(f"rope: every RoPE set, dtype and recipe, over positions 0..{model.ctx - 1:,}")
        return run_model_precision(model, names, source=source)
    else:
        require_positive_int("--dim", dim)
        require_positive_int("--ctx", ctx)
        if ctx < 2:
            raise PosembError(f"--ctx must be at least 2: a collapse compares neighbouring positions, got {ctx}")
        require_finite("--base", base)
        if base <= 1:
            raise PosembError(f"--base must be above 1, got {base!r}")
        if scheme != "rope" and typed:
            flag = "--" + typed[0].replace("_", "-")
            raise PosembError(f"{flag} applies to --scheme rope only")
        refuse_scaling_without_factor(flags)
        config = with_position_settings(EmbeddingConfig(dim=dim, ctx=ctx, base=float(base)), schemes=(scheme,),
                                        **{name: flags[name] for name in _ROPE_FLAGS})
        if scheme != "rope":
            config = dataclasses.replace(config, head_dim=None)
    or_silent(progress).stage(f"{scheme}: every dtype, both recipes, over positions 0..{config.ctx - 1:,}")
    return run_precision(config, scheme, names)
