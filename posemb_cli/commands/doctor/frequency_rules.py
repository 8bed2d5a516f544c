"""Rules on the frequencies the model rotates with: rotary width, base, and the dtype positions are held in.

Ids: head-size, partial-rotary, rope-theta-missing, rope-base-bound, low-precision-positions.
"""

from __future__ import annotations

from posemb_cli.commands.doctor.report import Finding
from posemb_cli.commands.doctor.subject import Subject, number

_DEFAULT_BASE = 10000.0
_THETA_SILENT_UP_TO = 4096  # longer contexts seldom train at transformers' default base
_PRECISION_PROBE = 4096  # the native recipe collapses below this in bfloat16 (256) and float16 (2048)

__all__ = ["frequency_findings", "rotary_width"]


def rotary_width(model: Subject) -> tuple[int | None, list[Finding]]:
    """The rotary features of one head, and findings when they cannot be formed."""
    head_dim = model.head_dim()
    if head_dim is None:
        return None, [Finding("head-size", "error",
                              f"{model.label('hidden_size')} / {model.label('num_attention_heads')} gives no whole "
                              "head size and no head_dim is set", "set head_dim, or make hidden_size a multiple of "
                              "num_attention_heads")]
    name = "partial_rotary_factor"
    in_block = name in model.block_values
    source = model.block_values if in_block else model.fields
    if name not in source and "rotary_pct" in model.fields:
        name, source = "rotary_pct", model.fields
    partial = number(source.get(name, 1.0))
    label = model.label(name, in_block=in_block)
    if partial is None or not 0 < partial <= 1:
        return None, [Finding("partial-rotary", "error", f"{label} is {source.get(name)!r}: it must be in (0, 1]",
                              "give the share of each head that rotates, e.g. 0.25 or 1")]
    exact = head_dim * partial
    width = int(exact)
    if width != exact or width % 2 or width < 2:
        why = "is not a whole number" if width != exact else "is odd" if width % 2 else "is below 2"
        return None, [Finding("partial-rotary", "error",
                              f"head size {head_dim} × {label} {partial:g} = {exact:g} rotary features, which {why}: "
                              "RoPE rotates whole feature pairs", "choose a factor that gives an even number of "
                              f"features, e.g. {max(2, int(exact) // 2 * 2) / head_dim:g}")]
    return width, []


def _bound(model: Subject, width: int, base: float) -> list[Finding]:
    """rope-base-bound: the set's Σ cos(m·θ) over the distances its layers attend (docs/json-contract.md, "The
    context bound"); the advice names a base posemb checked, and the proof above its grid."""
    from posemb_cli.core.schemes.rope_scaling import rope_frequencies
    from posemb_cli.core.wording import general
    from posemb_cli.run.context_bound import frequency_bound

    rope_set = model.rope_set
    if rope_set is None:
        return []
    attends = model.reading.attends_to(rope_set.name)
    scaling = rope_set.scaling
    if scaling.kind in ("ntk", "dynamic") and width < 4:
        return []

    def frequencies(candidate: float):
        return rope_frequencies(width, candidate, scaling, seq_len=attends.distance)[1]

    bound = frequency_bound(frequencies, base, attends.distance)
    if bound.covers is not False:
        return []
    where = model.label("rope_theta", in_block=model.layer_type is not None)
    first, low, grid = bound.first_negative, bound.dip, bound.grid
    lowest = "" if low is None else (f"; it is lowest at m = {low.at:,}, {general(low.sum)} of {width // 2} "
                                     f"pairs ({general(100 * low.depth)}%)")
    message = (f"its layers attend distances below {attends.distance:,} ({attends.why}), past the base's context "
               f"bound: with {where} {general(base)} and "
               f"{width} rotary features Σ cos(m·θ) is negative from m = {first:,}{lowest} (Men et al. 2024), so "
               "attention cannot favour similar tokens there over random ones")
    if bound.min_base is not None:
        fix = (f"set {where} to {general(bound.min_base)}: it and every base of posemb's grid above it "
               f"({grid.per_decade} a decade, {grid.figures} significant figures) up to {general(grid.proven_from)} "
               f"cover these distances, and every base from {general(grid.proven_from)} up provably does "
               f"(bases between grid values can fail); or keep contexts below {first:,}")
    elif grid.proven_from is not None:
        fix = (f"every base from {general(grid.proven_from)} up provably covers these distances (posemb does not "
               f"scan bases at this length); or keep contexts below {first:,}")
    else:
        fix = f"no base covers them with this scaling; keep contexts below {first:,}"
    return [Finding("rope-base-bound", "warning", message, fix)]


def _precision(model: Subject, width: int, base: float) -> list[Finding]:
    import numpy as np

    from posemb_cli.measures.half_floats import HALF_DTYPES, native_collapse

    dtype, maximum = model.reading.dtype, model.max_positions
    if dtype not in HALF_DTYPES or maximum is None:
        return []
    frequencies = 1.0 / base ** (np.arange(0, width, 2, dtype=np.float64) / width)
    collapse = native_collapse(frequencies, min(maximum, _PRECISION_PROBE), dtype)  # NumPy: no torch in doctor
    if collapse is None:
        return []
    return [Finding("low-precision-positions", "info",
                    f"the model is {dtype} and its context ({maximum}) passes the position where {dtype} positions "
                    f"collapse: held in {dtype}, position {collapse} and {collapse + 1} are the same number",
                    "compute positions, frequencies and cos/sin in float32 and cast the result "
                    "(posemb precision shows both recipes)")]


def _raw_base(model: Subject) -> tuple[str | None, object]:
    """(label, value) of the base as the file writes it, or (None, None) when it writes none."""
    for source, in_block in ((model.block_values, True), (model.fields, False)):
        for name in ("rope_theta", "rotary_emb_base"):
            if name in source:
                return model.label(name, in_block=in_block), source[name]
    return None, None


def frequency_findings(model: Subject) -> list[Finding]:
    """Every finding about the rotary frequencies of one set."""
    width, found = rotary_width(model)
    label, raw = _raw_base(model)
    base = number(raw) if label is not None else None
    if model.rope_set is not None:  # read as the loaders read it (a family's own default included)
        base = None if model.rope_set.base_defaulted else model.rope_set.base
    if base is None:
        if label is not None:
            return found + [Finding("rope-theta-missing", "error", f"{label} is not a number",
                                    "give rope_theta as a number above 1")]
        maximum = model.max_positions
        if maximum is not None and maximum > _THETA_SILENT_UP_TO:
            found.append(Finding("rope-theta-missing", "warning",
                                 f"no rope_theta with a context of {maximum}: loaders assume {_DEFAULT_BASE:g}, "
                                 "a base long-context models seldom use",
                                 "write the base the model was trained with as rope_theta"))
        base = _DEFAULT_BASE
    elif base <= 1:
        return found + [Finding("rope-theta-missing", "error", f"{label or 'rope_theta'} is {base:g}: it must be "
                                "above 1", "give the base the model was trained with")]
    if width is None:
        return found
    if model.rope_set is not None:  # the set as read: DeepSeek rotates qk_rope_head_dim of its heads, not all
        width = model.rope_set.rotary_dim
    return found + _bound(model, width, base) + _precision(model, width, base)
