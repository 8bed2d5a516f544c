"""Each RoPE set of a model as trained: its length T, its published frequencies, what candidates are specified
against, and whether the target length asks it to extend at all.

T is the longest context the published frequencies were trained at: ``max_position_embeddings`` (GGUF:
``{arch}.context_length``). A yarn, llama3 or longrope block whose ``original_max_position_embeddings`` is
not below that length cannot say whether its scaled frequencies were ever trained (a block added for
inference only, as Qwen2.5's model card suggests): T is then the block's original length, and for yarn and
llama3 the trained frequencies are the unscaled ones. Candidates are specified as transformers takes them,
against the reference length R the unscaled frequencies were trained at: the block's
``original_max_position_embeddings`` (yarn, llama3, longrope), T / factor (linear), else T.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.core.wording import layer_ranges
from posemb_cli.errors import PosembError
from posemb_cli.sources.model.reading import Attends

if TYPE_CHECKING:
    import numpy as np

    from posemb_cli.sources.model.reading import ModelReading, RopeSet

_ORIGINAL_KINDS = ("yarn", "llama3", "longrope")
_UNRESTATED = {"proportional": "proportional RoPE (frequencies over the whole head, divided by its factor)",
               "freq_factors": "the file's rope_freqs.weight divisors (llama.cpp's form of Llama 3.1's llama3 "
                               "scaling), from which no transformers rope_parameters block can be recovered"}
_CARRIED = ("partial_rotary_factor", "mrope_section", "mrope_interleaved")  # keys every rope type takes

__all__ = ["TrainedSet", "carried_keys", "trained_sets"]


@dataclass(frozen=True)
class TrainedSet:
    """One RoPE set as trained, and what the target asks of it.

    Attributes:
        rope: the set as read. layers: its layers.
        trained_length: T; trained_from: where T came from, in words.
        reference_length: R, the length transformers' candidates are specified against; reference_from: why.
        inv_freq: (P,) the published frequencies θ; attention_factor: the published factor on cos and sin.
        parameters: the published rope_parameters as transformers 5 takes them (what keeping it means).
        context: ``max_position_embeddings`` as the file states it (transformers' dynamic NTK reads it).
        attends: the distances its layers attend at the target. needs_extension: D > T.
    """

    rope: RopeSet
    layers: tuple[int, ...]
    trained_length: int
    trained_from: str
    reference_length: int
    reference_from: str
    inv_freq: np.ndarray
    attention_factor: float
    parameters: dict
    context: int
    attends: Attends
    needs_extension: bool

    @property
    def critical_pair(self) -> int:
        """The first pair with T θ < 2π (it never turned a full circle in training); P when there is none."""
        import math

        spans = (self.trained_length * self.inv_freq).tolist()
        return next((pair for pair, span in enumerate(spans) if span < 2 * math.pi), len(spans))

    @property
    def why(self) -> str:
        distance, length = self.attends.distance, self.trained_length
        if self.needs_extension:
            return f"its layers attend distances up to {distance - 1:,}, past its trained length {length:,}"
        if self.attends.windowed:
            return (f"needs no extension: its layers attend within a window of {distance:,} positions, at most its "
                    f"trained length {length:,}")
        return f"needs no extension: distances below {distance:,} are within its trained length {length:,}"


def carried_keys(one: RopeSet) -> dict:
    """The keys of the set's block that every rope type takes and that a candidate keeps."""
    values = one.block.values if one.block is not None else {}
    return {key: values[key] for key in _CARRIED if values.get(key) is not None}


def _published(one: RopeSet, *, unscaled: bool) -> dict:
    """The set's rope_parameters as transformers 5 takes them: the file's block, its type under ``rope_type``,
    the base and transformers' defaults filled in; the default block when the trained frequencies are unscaled."""
    base = {"rope_type": "default", "rope_theta": one.base, **carried_keys(one)}
    scaling = one.scaling
    if unscaled or scaling.kind == "none":
        return base
    values = {key: value for key, value in (one.block.values if one.block is not None else {}).items()
              if key not in ("type", "rope_type", "rope_theta")}
    block = {**base, **values, "rope_type": one.rope_type if one.rope_type != "mrope" else "default",
             "factor": scaling.factor}
    if scaling.kind in _ORIGINAL_KINDS:
        block["original_max_position_embeddings"] = scaling.original_ctx
    return block


def _context_field(reading: ModelReading) -> str:
    if reading.format == "gguf":
        return f"{reading.model_type}.context_length"
    return (reading.fields.prefix if reading.fields is not None else "") + "max_position_embeddings"


def _lengths(one: RopeSet, reading: ModelReading, context: int) -> tuple[int, str, int, str, bool]:
    """(T, where from, R, why, trained unscaled)."""
    field, scaling = _context_field(reading), one.scaling
    if scaling.kind in _ORIGINAL_KINDS:
        original = int(scaling.original_ctx or context)
        said = f"original_max_position_embeddings {original:,}"
        if context > original:
            return (context, f"{field} {context:,}: the {scaling.kind} frequencies were trained at it", original,
                    said, False)
        return (original, f"{said}: {field} {context:,} is not above it, so the file cannot tell whether the "
                          f"{scaling.kind} block was trained or added for inference only; taken as added for "
                          f"inference" + (", the trained frequencies the unscaled ones"
                                          if scaling.kind != "longrope" else ""),
                original, said, scaling.kind != "longrope")
    trained = f"{field} {context:,}"
    if scaling.kind == "linear":
        reference = max(1, round(context / scaling.factor))
        return context, trained, reference, f"{field} / linear factor {scaling.factor:g} = {reference:,}", False
    return context, trained, context, trained, scaling.kind == "dynamic"


def _attends(reading: ModelReading, one: RopeSet, target: int) -> Attends:
    window = reading.window_of(one.name)
    if window is not None and window < target:
        kinds = {record.attention for record in reading.layers if record.rope_set == one.name}
        what = "chunk" if kinds == {"chunked_attention"} else "sliding window"
        return Attends(window, f"the {what} of its layers ({layer_ranges(reading.layers_of(one.name))}): "
                               f"distances below {window:,}", windowed=True)
    return Attends(target, f"the target length: distances below {target:,}")


def _trained(reading: ModelReading, one: RopeSet, target: int, flag: str) -> TrainedSet:
    from posemb_cli.core.schemes.rope_scaling import RopeScaling, rope_frequencies

    if one.scaling.kind in _UNRESTATED:
        raise PosembError(f"{flag} {reading.path}: RoPE set {one.name} uses {_UNRESTATED[one.scaling.kind]}: "
                          "extend restates each candidate as transformers' rope_parameters and cannot do so here")
    context = reading.context
    if context is None:
        raise PosembError(f"{flag} {reading.path}: the file states no trained context (max_position_embeddings)")
    length, length_from, reference, reference_from, unscaled = _lengths(one, reading, context)
    scaling = RopeScaling() if unscaled else one.scaling
    _, inv_freq, attention = rope_frequencies(one.rotary_dim, one.base, scaling, seq_len=length)
    attends = _attends(reading, one, target)
    return TrainedSet(rope=one, layers=tuple(reading.layers_of(one.name)), trained_length=length,
                      trained_from=length_from, reference_length=reference, reference_from=reference_from,
                      inv_freq=inv_freq, attention_factor=attention, parameters=_published(one, unscaled=unscaled),
                      context=context, attends=attends, needs_extension=attends.distance > length)


def trained_sets(reading: ModelReading, target: int, flag: str = "MODEL") -> list[TrainedSet]:
    """Every RoPE set of the model as trained, with what the target length ``target`` asks of it."""
    return [_trained(reading, one, target, flag) for one in reading.rope_sets]
