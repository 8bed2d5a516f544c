"""A candidate as llama.cpp's command-line flags, where llama.cpp has an exact equivalent; else why not.

llama.cpp's options (common/arg.cpp): ``--rope-scaling {none,linear,yarn}``, ``--rope-scale N`` (frequencies
divided by N), ``--rope-freq-base N``, ``--yarn-orig-ctx N``, ``--yarn-beta-fast N``, ``--yarn-beta-slow N``,
``-c N``. Its YaRN is transformers' (ramp over the pair index between floor and ceil of the correction dims,
attention factor 0.1 ln(s) + 1); it applies these flags to every layer that is not sliding-window
(``get_rope_freq_base``/``get_rope_freq_scale`` keep the sliding layers' trained values), and always divides
by a file's ``rope_freqs.weight`` (llama3) or LongRoPE factor tensors, which ``convert_hf_to_gguf.py`` writes
from a llama3 or longrope block. llama.cpp has no dynamic NTK and no llama3 runtime flag.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from posemb_cli.run.models.scaling_candidates import SetCandidateSpec
    from posemb_cli.run.models.trained_rope import TrainedSet

_BAKED = ("llama3", "longrope")  # published scalings llama.cpp keeps in tensors

__all__ = ["llama_cpp_flags"]


def _number(value: float) -> str:
    return f"{value:.15g}"


def _flags(trained: TrainedSet, spec: SetCandidateSpec, target: int) -> tuple[list[str] | None, str]:
    parameters, kind = spec.parameters, trained.rope.scaling.kind
    rope_type = parameters["rope_type"]
    if kind in _BAKED:
        if spec.scaling == "none" and rope_type == kind and kind == "llama3":
            return ["-c", str(target)], "the file's rope_freqs.weight keeps the published llama3 frequencies"
        if spec.scaling == "none" and rope_type == kind and math.isclose(spec.attention_factor,
                                                                         trained.attention_factor, rel_tol=1e-9):
            return ["-c", str(target)], "llama.cpp switches to the file's long factors past the original length"
        tensors = "rope_freqs.weight" if kind == "llama3" else "rope_factors_long/short.weight"
        return None, (f"no equivalent: a GGUF of this model carries its {kind} scaling as {tensors}, which llama.cpp "
                      "divides by whatever the flags say; convert the model with this block instead")
    if rope_type == "default":
        flags = ["--rope-scaling", "none"]
        if parameters["rope_theta"] != trained.rope.base:
            flags += ["--rope-freq-base", _number(parameters["rope_theta"])]
        return [*flags, "-c", str(target)], "exact"
    if rope_type == "linear":
        flags = ["--rope-scaling", "linear", "--rope-scale", _number(parameters["factor"])]
        if parameters["rope_theta"] != trained.rope.base:  # NTK composed with a published linear scaling
            flags += ["--rope-freq-base", _number(parameters["rope_theta"])]
        return [*flags, "-c", str(target)], "exact"
    if rope_type == "yarn":
        return _yarn(spec, target)
    if rope_type == "dynamic":
        return None, ("no equivalent: llama.cpp has no dynamic NTK (a static --rope-freq-base gives its frequencies "
                      "at one length only)")
    return None, ("no equivalent: llama.cpp takes llama3 scaling only as a rope_freqs.weight tensor, which "
                  "convert_hf_to_gguf.py writes from a config's llama3 block; no runtime flag")


def _yarn(spec: SetCandidateSpec, target: int) -> tuple[list[str] | None, str]:
    parameters = spec.parameters
    factor = parameters["factor"]
    if parameters.get("truncate") is False:
        return None, "no equivalent: llama.cpp always rounds YaRN's ramp ends to whole pairs (truncate true)"
    if not math.isclose(spec.attention_factor, 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0, rel_tol=1e-12):
        return None, "no equivalent posemb vouches for: this attention factor is not YaRN's 0.1 ln(s) + 1"
    flags = ["--rope-scaling", "yarn", "--rope-scale", _number(factor),
             "--yarn-orig-ctx", str(parameters["original_max_position_embeddings"])]
    for key, flag, default in (("beta_fast", "--yarn-beta-fast", 32.0), ("beta_slow", "--yarn-beta-slow", 1.0)):
        if parameters.get(key) is not None and float(parameters[key]) != default:
            flags += [flag, _number(float(parameters[key]))]
    return [*flags, "-c", str(target)], "exact"


def llama_cpp_flags(specs: list[tuple[TrainedSet, SetCandidateSpec]], trained: list[TrainedSet],
                    target: int) -> tuple[list[str] | None, str]:
    """The flags for one candidate applied to the sets that need extension (``specs``), or None, and a note."""
    kept = [one for one in trained if not one.needs_extension and not one.attends.windowed]
    if kept:
        return None, (f"no equivalent: llama.cpp applies its flags to RoPE set {kept[0].rope.name} too, which this "
                      "candidate keeps as trained")
    found = {tuple(flags) if flags is not None else None: note for flags, note in
             (_flags(one, spec, target) for one, spec in specs)}
    if len(found) > 1:
        return None, "no equivalent: the RoPE sets would need different flags; llama.cpp takes one set of them"
    flags, note = next(iter(found.items()))
    if flags is not None and any(one.attends.windowed for one in trained):
        note += "; llama.cpp keeps its sliding-window layers' own RoPE, as the candidate does"
    return (list(flags) if flags is not None else None), note
