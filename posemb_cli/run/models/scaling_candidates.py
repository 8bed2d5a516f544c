"""Each candidate scaling of one RoPE set at a target length: the rope_parameters transformers 5 loads it with, and
the frequencies and attention factor it gives there (``core.schemes.rope_scaling``, transformers' rules).

The factor, unless ``--factor`` gives one, is the one that reaches the target L from the reference length R
(``run.models.trained_rope``): s = L / R for linear (θ / s), ntk (base b s^(d / (d - 2)), a plain ``rope_theta``:
transformers has no static NTK type), yarn (ramp over R, attention factor 0.1 ln s + 1 or DeepSeek's mscale),
llama3 (wavelength bounds R / low_freq_factor, R / high_freq_factor; the model's own, else Meta's 1 and 4) and
longrope (the model's own factors; the factor sets its attention factor sqrt(1 + ln s / ln R)). transformers'
dynamic NTK reads the file's ``max_position_embeddings`` C and, at length L, raises the base by
(f L / C - (f - 1))^(d / (d - 2)): its factor f = (L / R - 1) / (L / C - 1) makes that stretch L / R, NTK-aware's
at L (f = 1 when R = C). ``none`` keeps the published block (the default block where the trained frequencies are
unscaled). The published yarn block's beta_fast, beta_slow, mscale, mscale_all_dim and truncate are kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.core.schemes.rope_scaling import RopeScaling
from posemb_cli.run.models.trained_rope import carried_keys

if TYPE_CHECKING:
    import numpy as np

    from posemb_cli.run.models.trained_rope import TrainedSet
    from posemb_cli.sources.model.reading import ModelReading

_YARN_KEPT = ("beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate")

__all__ = ["SetCandidateSpec", "candidate_spec", "model_parameters"]


@dataclass(frozen=True)
class SetCandidateSpec:
    """One candidate for one set: its factor (None for none) and how it was chosen, the set's rope_parameters, and
    the frequencies (P,) and attention factor it gives at the target."""

    scaling: str
    factor: float | None
    factor_rule: str
    parameters: dict
    inv_freq: np.ndarray
    attention_factor: float


def _reach(trained: TrainedSet, target: int, given: float | None, what: str) -> tuple[float, str]:
    if given is not None:
        return given, "--factor"
    reference = trained.reference_length
    return target / reference, f"{what} = L / R = {target:,} / {reference:,}"


def _dynamic_factor(trained: TrainedSet, target: int, given: float | None) -> tuple[float, str]:
    if given is not None:
        return given, "--factor (transformers' dynamic factor f: the stretch at L is f L / C - (f - 1))"
    reference, context = trained.reference_length, trained.context
    factor = 1.0 if reference == context else (target / reference - 1) / (target / context - 1)
    return factor, (f"f = (L / R - 1) / (L / C - 1) with C = max_position_embeddings {context:,}: the stretch at L, "
                    f"f L / C - (f - 1), is L / R = {target / reference:g}, NTK-aware's")


def _frequencies(trained: TrainedSet, scaling: RopeScaling, target: int, base: float | None = None):
    from posemb_cli.core.schemes.rope_scaling import rope_frequencies

    one = trained.rope
    _, inv_freq, attention = rope_frequencies(one.rotary_dim, one.base if base is None else base, scaling,
                                              seq_len=target)
    return inv_freq, attention


def _mscale(factor: float, mscale: float) -> float:
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


def _yarn_scaling(trained: TrainedSet, factor: float) -> tuple[RopeScaling, dict]:
    published = trained.parameters if trained.parameters.get("rope_type") == "yarn" else {}
    kept = {key: published[key] for key in _YARN_KEPT if published.get(key) is not None}
    mscale, mscale_all = kept.get("mscale"), kept.get("mscale_all_dim")
    # DeepSeek's variant where both are given, as transformers computes it; else 0.1 ln s + 1
    attention = _mscale(factor, mscale) / _mscale(factor, mscale_all) if mscale and mscale_all else None
    scaling = RopeScaling(kind="yarn", factor=factor, original_ctx=trained.reference_length,
                          beta_fast=float(kept.get("beta_fast") or 32.0), beta_slow=float(kept.get("beta_slow") or 1.0),
                          attention_factor=attention, truncate=bool(kept.get("truncate", True)))
    return scaling, kept


def candidate_spec(scaling: str, trained: TrainedSet, target: int, given: float | None) -> SetCandidateSpec:
    """The candidate ``scaling`` (one of measures.extension_ranking.SCALINGS) for one set at the target ``target``."""
    one, reference = trained.rope, trained.reference_length
    base = {"rope_theta": one.base, **carried_keys(one)}
    if scaling == "none":
        published = trained.parameters
        kind = RopeScaling() if published["rope_type"] == "default" else one.scaling
        inv_freq, attention = _frequencies(trained, kind, target)
        return SetCandidateSpec("none", None, "the published frequencies, kept", published, inv_freq, attention)
    if scaling == "dynamic":
        factor, rule = _dynamic_factor(trained, target, given)
        kind = RopeScaling(kind="dynamic", factor=factor, original_ctx=trained.context)
        inv_freq, attention = _frequencies(trained, kind, target)
        return SetCandidateSpec(scaling, factor, rule, {"rope_type": "dynamic", "factor": factor, **base}, inv_freq,
                                attention)
    factor, rule = _reach(trained, target, given, "s")
    if scaling == "linear":
        kind = RopeScaling(kind="linear", factor=factor)
        parameters = {"rope_type": "linear", "factor": factor, **base}
    elif scaling == "ntk" and one.scaling.kind == "linear":
        return _ntk_over_linear(trained, factor, rule, base, target)
    elif scaling == "ntk":
        dim = one.rotary_dim
        theta = one.base * factor ** (dim / (dim - 2))
        inv_freq, attention = _frequencies(trained, RopeScaling(), target, base=theta)
        return SetCandidateSpec(scaling, factor, rule + f"; rope_theta b s^(d / (d - 2)), d = {dim}",
                                {"rope_type": "default", **base, "rope_theta": theta}, inv_freq, attention)
    elif scaling == "yarn":
        kind, kept = _yarn_scaling(trained, factor)
        parameters = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": reference, **kept,
                      **base}
    elif scaling == "llama3":
        published = trained.parameters if trained.parameters.get("rope_type") == "llama3" else {}
        low, high = float(published.get("low_freq_factor", 1.0)), float(published.get("high_freq_factor", 4.0))
        kind = RopeScaling(kind="llama3", factor=factor, original_ctx=reference, low_freq_factor=low,
                           high_freq_factor=high)
        parameters = {"rope_type": "llama3", "factor": factor, "original_max_position_embeddings": reference,
                      "low_freq_factor": low, "high_freq_factor": high, **base}
    else:  # longrope: the model's own factors
        own = one.scaling
        kind = RopeScaling(kind="longrope", factor=factor, original_ctx=reference, short_factor=own.short_factor,
                           long_factor=own.long_factor, attention_factor=_longrope_attention(factor, reference))
        parameters = {"rope_type": "longrope", "factor": factor, "original_max_position_embeddings": reference,
                      "short_factor": list(own.short_factor or ()), "long_factor": list(own.long_factor or ()),
                      **base}
    inv_freq, attention = _frequencies(trained, kind, target)
    return SetCandidateSpec(scaling, factor, rule, parameters, inv_freq, attention)


def _ntk_over_linear(trained: TrainedSet, factor: float, rule: str, base: dict, target: int) -> SetCandidateSpec:
    """NTK-aware composed with a published linear scaling, as transformers can express it: the linear block kept,
    its rope_theta raised by the stretch past the trained length, s T / R ... so no pair turns faster than trained.

    The stretch past T is ``factor`` R / T (``factor`` is, as for every candidate, relative to R = T / k).
    """
    one = trained.rope
    published = float(one.scaling.factor)
    dim = one.rotary_dim
    stretch = max(1.0, factor * trained.reference_length / trained.trained_length)
    theta = one.base * stretch ** (dim / (dim - 2))
    kind = RopeScaling(kind="linear", factor=published)
    inv_freq, attention = _frequencies(trained, kind, target, base=theta)
    parameters = {"rope_type": "linear", "factor": published, **base, "rope_theta": theta}
    return SetCandidateSpec("ntk", factor, rule + f"; composed with the published linear x{published:g}: rope_theta "
                            f"b (s R / T)^(d / (d - 2)), d = {dim}, the linear factor kept", parameters, inv_freq,
                            attention)


def _longrope_attention(factor: float, original: int) -> float:
    """transformers' LongRoPE default: sqrt(1 + ln(factor) / ln(original)), 1 without stretch."""
    return 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))


def model_parameters(reading: ModelReading, per_set: dict[str, dict]) -> dict:
    """The whole model's rope_parameters from each set's (``per_set``, by set name): the one block, or one per layer
    type (None where a type has no RoPE)."""
    blocks = reading.blocks
    if not blocks or blocks[0][0] is None:
        return next(iter(per_set.values()))
    return {str(layer_type): None if block is None else per_set.get(str(layer_type)) for layer_type, block in blocks}
