"""`precision`: a rope or sinusoidal signal held in each dtype, native and cast, against float64, run from its checked
request."""

from __future__ import annotations

import os

from posemb_cli.commands.precision.report import PrecisionReport
from posemb_cli.commands.precision.request import PrecisionRequest
from posemb_cli.core.progress import Progress, or_silent
from posemb_cli.errors import PosembError
from posemb_cli.run.models.model_source import as_argument, said, speaking_of, with_resolved
from posemb_cli.sources.naming.model_file import ModelFile

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
    if not model.has_weights:
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


def precision_command(request: PrecisionRequest, *, progress: Progress | None = None) -> PrecisionReport:
    from posemb_cli.commands.precision.measure import run_model_precision, run_precision

    named = request.model
    with speaking_of(named):
        if named is not None:
            model, source = _rope_model(named)
            or_silent(progress).stage(f"rope: every RoPE set, dtype and recipe, over positions 0..{model.ctx - 1:,}")
            report = run_model_precision(model, request.dtypes, source=source)
        else:
            config = request.config
            assert config is not None  # a scheme built from flags
            or_silent(progress).stage(f"{request.scheme}: every dtype, both recipes, over positions "
                                      f"0..{config.ctx - 1:,}")
            report = run_precision(config, request.scheme, request.dtypes)
    return with_resolved(report, named)
