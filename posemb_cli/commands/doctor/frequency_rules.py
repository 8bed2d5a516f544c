"""Rules on the frequencies the model rotates with: rotary width, base, and the dtype positions are held in.

Ids: head-size, partial-rotary, rope-theta-missing, rope-base-bound, low-precision-positions.
"""

from __future__ import annotations

from posemb_cli.commands.doctor.report import Finding
from posemb_cli.commands.doctor.subject import Subject, number

_DEFAULT_BASE = 10000.0
_THETA_SILENT_UP_TO = 4096  # longer contexts seldom train at transformers' default base
_PRECISION_PROBE = 4096  # the native recipe collapses below this in bfloat16 (256) and float16 (2048)
# The base bound against retrieval measured within the trained length (benchmarks/README.md, "Retrieval by
# distance"): SmolLM2-135M's bound, the longest distance within T at which copying still held there, and the
# distance at which it failed (top-1 accuracy 0.386 at 6,144 and 0.000 at 8,000, over 8 windows).
SMOLLM2_BOUND, SMOLLM2_HELD, SMOLLM2_FAILED = 3_616, 6_144, 8_000

__all__ = ["frequency_findings", "rotary_width"]


def rotary_width(model: Subject) -> tuple[int | None, list[Finding]]:
    """The rotary features of one head, and findings when they cannot be formed."""
    head_dim = model.head_dim()
    if head_dim is None:
        return None, [Finding("head-size", "error",
                              f"{model.label('hidden_size')} / {model.label('num_attention_heads')} gives no whole "
                              "head size and no head_dim is set", "set head_dim, or make hidden_size a multiple of "
                              "num_attention_heads", key=model.label(
                                  "hidden_size" if model.written("hidden_size") else "num_attention_heads"))]
    name = "partial_rotary_factor"
    in_block = name in model.block_values
    source = model.block_values if in_block else model.fields
    if name not in source and "rotary_pct" in model.fields:
        name, source = "rotary_pct", model.fields
    partial = number(source.get(name, 1.0))
    label = model.label(name, in_block=in_block)
    if partial is None or not 0 < partial <= 1:
        return None, [Finding("partial-rotary", "error", f"{label} is {source.get(name)!r}: it must be in (0, 1]",
                              "give the share of each head that rotates, e.g. 0.25 or 1", key=label)]
    exact = head_dim * partial
    width = int(exact)
    if width != exact or width % 2 or width < 2:
        why = "is not a whole number" if width != exact else "is odd" if width % 2 else "is below 2"
        return None, [Finding("partial-rotary", "error",
                              f"head size {head_dim} × {label} {partial:g} = {exact:g} rotary features, which {why}: "
                              "RoPE rotates whole feature pairs", "choose a factor that gives an even number of "
                              f"features, e.g. {max(2, int(exact) // 2 * 2) / head_dim:g}", key=label)]
    return width, []


def _bound(model: Subject, width: int, base: float) -> list[Finding]:
    """rope-base-bound: the set's Σ cos(m·θ) over the distances its layers attend (docs/json-contract.md, "The
    context bound"); the advice names a base posemb checked, and the proof above its grid."""
    from posemb_cli.core.schemes.rope_scaling import rope_frequencies
    from posemb_cli.core.wording import general
    from posemb_cli.measures.context_bound_key import frequency_bound

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
               f"{width} rotary features Σ cos(m·θ) is negative from m = {first:,}{lowest} (Men et al. 2024). "
               "For weights trained this way the bound marks a risk to far retrieval, not to perplexity (Men et "
               f"al.); measured on SmolLM2-135M (bound {SMOLLM2_BOUND:,}, trained at 8,192), copying a span declined "
               f"with distance but still held at {SMOLLM2_HELD:,} tokens (top-1 0.39, against 0.57 at 3,072) and "
               f"failed at {SMOLLM2_FAILED:,} (benchmarks/README.md): a risk to measure, not a fault")
    trained = ("the weights were trained with this base: changing rope_theta moves every pair and needs training, "
               "so keep it; where far retrieval matters, keep inputs below "
               f"{first:,}, and to run past the trained length posemb extend MODEL --to L ranks the scalings and, "
               "with --text FILE, measures retrieval by distance")
    if bound.min_base is not None:
        fix = (f"{trained}. For a model not trained yet, {where} {general(bound.min_base)} covers these distances "
               f"(it and every base of posemb's grid above it, {grid.per_decade} a decade, {grid.figures} "
               f"significant figures, up to {general(grid.proven_from)}; every base from "
               f"{general(grid.proven_from)} up provably does)")
    elif grid.proven_from is not None:
        fix = (f"{trained}. For a model not trained yet, every base from {general(grid.proven_from)} up provably "
               "covers these distances")
    else:
        fix = f"{trained}. No base covers these distances with this scaling"
    return [Finding("rope-base-bound", "info", message, fix, key=_raw_base(model)[0] or where)]


def _precision(model: Subject, width: int, base: float) -> list[Finding]:
    import numpy as np

    from posemb_cli.measures.half_floats import HALF_DTYPES, native_collapse

    dtype, maximum = model.reading.dtype, model.max_positions
    if model.rope_set is not None:  # the distances its layers attend, as the base bound says them
        maximum = model.reading.attends_to(model.rope_set.name).distance
    if dtype not in HALF_DTYPES or maximum is None:
        return []
    frequencies = 1.0 / base ** (np.arange(0, width, 2, dtype=np.float64) / width)
    collapse = native_collapse(frequencies, min(maximum, _PRECISION_PROBE), dtype)  # NumPy: no torch in doctor
    if collapse is None:
        return []
    return [Finding("low-precision-positions", "info",
                    f"the model is {dtype} and its layers attend distances below {maximum:,}, past the position "
                    f"where {dtype} positions collapse: held in {dtype}, position {collapse} and {collapse + 1} are "
                    "the same number",
                    "nothing to change for transformers, vLLM or llama.cpp, which compute RoPE's positions and cos/sin "
                    f"in float32 whatever the weights' dtype; a runtime of your own that holds positions in {dtype} "
                    "collapses them: compute them in float32 and cast cos/sin (posemb precision shows both recipes)",
                    key=_dtype_key(model))]


def _dtype_key(model: Subject) -> str:
    """The key the model's dtype is read from, as the reading takes it: the text model's own first, then the top
    level's."""
    name = next((name for name in ("torch_dtype", "dtype") if isinstance(model.fields.get(name), str)), None)
    if name is not None:
        return model.label(name)
    top = model.reading.top or {}
    return next((name for name in ("torch_dtype", "dtype") if isinstance(top.get(name), str)), "torch_dtype")


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
                                    "give rope_theta as a number above 1", key=label)]
        maximum = model.max_positions
        if maximum is not None and maximum > _THETA_SILENT_UP_TO:
            found.append(Finding("rope-theta-missing", "warning",
                                 f"no rope_theta with a context of {maximum}: loaders assume {_DEFAULT_BASE:g}, "
                                 "a base long-context models seldom use",
                                 "write the base the model was trained with as rope_theta",
                                 key=model.label("rope_theta")))
        base = _DEFAULT_BASE
    elif base <= 1:
        return found + [Finding("rope-theta-missing", "error", f"{label or 'rope_theta'} is {base:g}: it must be "
                                "above 1", "give the base the model was trained with", key=label or "rope_theta")]
    if width is None:
        return found
    if model.rope_set is not None:  # the set as read: DeepSeek rotates qk_rope_head_dim of its heads, not all
        width = model.rope_set.rotary_dim
    return found + _bound(model, width, base) + _precision(model, width, base)
