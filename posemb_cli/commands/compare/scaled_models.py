"""A real RoPE model under another scaling (``compare MODEL --scalings yarn:4``), written as a config would write it.

Each scaling is ``posemb extend``'s candidate (``run.models.scaling_candidates``), so a scaling means the same
transformers 5 ``rope_parameters`` here and there, with the factor as given. It is relative to the length R its
candidate is specified against (``run.models.trained_rope``: the length the model's unscaled frequencies were
trained at, e.g. ``max_position_embeddings`` of an unscaled model; for dynamic, transformers'
``max_position_embeddings`` C, which its dynamic NTK measures length against), and it runs to L = factor x R. The
scaled model is the model with ``max_position_embeddings`` L (C for dynamic) and each RoPE set's block replaced: the
candidate's, except a set whose layers attend within a window no longer than its trained length (a sliding set),
which keeps its own. Each block is read back by the reader a config.json's block goes through
(``sources.hf_config.rope_parameters``), so the model is analysed as ``posemb inspect`` analyses a config.json
holding those blocks."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError

if TYPE_CHECKING:
    from posemb_cli.run.models.real_sources import RealModel
    from posemb_cli.run.models.trained_rope import TrainedSet
    from posemb_cli.sources.model.reading import ModelReading, RopeSet

MAX_FACTOR = 2.0**20
# The notes a RoPE block's reading writes (``read_rope_block``): a re-read block replaces them all.
_BLOCK_NOTES = ("rope_type_in_file", "frequencies_for_seq_len", "dynamic_reference_length", "ignored",
                "original_max_position_embeddings", "longrope_factors_in_use", "truncate")
_UNRESTATED = ("proportional", "freq_factors")

__all__ = ["MAX_FACTOR", "ScalingChoice", "parse_scalings", "scaled_model"]


@dataclass(frozen=True)
class ScalingChoice:
    """One scaling asked for: its name (one of ``posemb extend``'s) and its factor (None for none)."""

    name: str
    factor: float | None = None

    @property
    def label(self) -> str:
        return self.name if self.factor is None else f"{self.name}:{self.factor:g}"


def _factor(part: str, name: str, text: str) -> float:
    try:
        factor = float(text)
    except ValueError:
        factor = math.nan
    if not math.isfinite(factor) or not 1 <= factor <= MAX_FACTOR:
        raise PosembError(f"--scalings {part}: the factor must be a number from 1 to 2**20, got {text!r}")
    return factor


def parse_scalings(text: str) -> list[ScalingChoice]:
    """``none,linear:4,yarn:4,llama3:8``: each scaling with its factor (none takes none), each once."""
    from posemb_cli.measures.extension_ranking import SCALINGS

    chosen = []
    for part in (piece.strip() for piece in str(text).split(",")):
        name, colon, factor = part.partition(":")
        if name not in SCALINGS:
            raise PosembError(f"--scalings: unknown scaling {name!r}; choose from {', '.join(SCALINGS)}, each but "
                              "none with its factor (yarn:4)")
        if name == "none":
            if colon:
                raise PosembError(f"--scalings {part}: none keeps the model's own frequencies and takes no factor")
            chosen.append(ScalingChoice("none"))
        elif not colon:
            raise PosembError(f"--scalings {part}: give its factor, e.g. {name}:4 (the factor is relative to the "
                              "length the model's unscaled frequencies were trained at)")
        else:
            chosen.append(ScalingChoice(name, _factor(part, name, factor)))
    labels = [choice.label for choice in chosen]
    if len(set(labels)) != len(labels):
        raise PosembError(f"--scalings: each scaling may be given once, got {text!r}")
    return chosen


def _reread(reading: ModelReading, one: RopeSet, parameters: dict, max_ctx: int) -> RopeSet:
    """The set with its block replaced by ``parameters``, read as a config.json's block is read."""
    from posemb_cli.sources.hf_config.rope_parameters import read_rope_block
    from posemb_cli.sources.model.fields import Fields
    from posemb_cli.sources.model.reading import SHARED_SET

    prefix = "rope_parameters." if one.name == SHARED_SET else f"rope_parameters.{one.name}."
    block = Fields(reading.path, dict(parameters), prefix)
    read = read_rope_block(Fields(reading.path, {}), block, head_dim=one.head_dim, max_ctx=max_ctx,
                           fixed_rotary=(prefix + "rotary_dim", one.rotary_dim))
    notes = {**{key: value for key, value in one.notes.items() if key not in _BLOCK_NOTES},
             "max_position_embeddings_in_file": max_ctx, **read.notes}
    return dataclasses.replace(one, base=read.base, rotary_dim=read.rotary_dim, scaling=read.scaling, ctx=read.ctx,
                               rope_type=read.rope_type, decided_by=read.base_from, notes=notes, block=block,
                               base_defaulted=False)


def _lead(reading: ModelReading, trained: list[TrainedSet]) -> TrainedSet:
    """The set whose layers attend farthest (the one inspect leads with)."""
    from posemb_cli.sources.model.reading import SHARED_SET
    from posemb_cli.sources.model.rope_model import rope_model_of

    name = rope_model_of(reading).layer_type or SHARED_SET
    return next(one for one in trained if one.rope.name == name)


def _refuse(reading: ModelReading, choice: ScalingChoice, source: str) -> None:
    """Refuse a scaling the model cannot take, naming the model as ``source`` (as the user named it)."""
    from posemb_cli.sources.model.rope_loaders import cannot_load

    why = cannot_load(reading.model_type, choice.name)
    if why is not None:
        raise PosembError(f"--scalings {choice.label}: {why}")
    for one in reading.rope_sets:
        if one.scaling.kind in _UNRESTATED:
            raise PosembError(f"--scalings {choice.label}: {source}: RoPE set {one.name} uses {one.scaling.kind} "
                              "scaling, which no transformers rope_parameters block restates")
        if choice.name == "longrope" and one.scaling.kind != "longrope":
            raise PosembError(f"--scalings {choice.label}: {source}: the model carries no LongRoPE factors "
                              "(short_factor and long_factor)")


def scaled_model(real: RealModel, choice: ScalingChoice) -> tuple[RealModel, dict]:
    """The model under ``choice``, and the JSON ``scaling`` object that says what it is and what it is relative to.

    ``none`` is the model as published, read as it is.
    """
    from posemb_cli.run.models.scaling_candidates import candidate_spec, model_parameters
    from posemb_cli.run.models.trained_rope import trained_sets
    from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT
    from posemb_cli.sources.model.rope_model import rope_model_of

    reading = real.reading
    if real.rope is None or reading is None or reading.kind.kind != "rope":
        raise PosembError(f"--scalings: {real.said()} uses {real.kind.label} ({real.kind.decided_by}); "
                          "a scaling stretches RoPE, and this model has none")
    if choice.factor is None:
        return real, {"name": "none", "label": "none", "factor": None, "rope_parameters": None,
                      "reference_length": None, "reference_from": None, "length": real.rope.ctx,
                      "max_position_embeddings": reading.context, "scaled_sets": [],
                      "kept_sets": [one.name for one in reading.rope_sets],
                      "relative_to": f"the model as published, its own blocks read as they are, over "
                                     f"{real.rope.ctx:,} positions"}
    _refuse(reading, choice, real.said())
    published = trained_sets(reading, reading.context or 1, real.flag)
    lead = _lead(reading, published)
    per_set = {one.rope.name: one.parameters for one in published}
    dynamic = choice.name == "dynamic"
    reference = lead.context if dynamic else lead.reference_length
    reference_from = (f"max_position_embeddings {reference:,}: transformers' dynamic NTK measures length against it"
                      if dynamic else lead.reference_from)
    length = max(reference, round(choice.factor * reference))
    if length > MAX_COUNT:
        raise PosembError(f"--scalings {choice.label}: {choice.factor:g} x {reference:,} positions is past "
                          f"{MAX_COUNT_TEXT}")
    max_ctx = lead.context if dynamic else length
    trained = trained_sets(reading, length, real.flag)
    scaled: list[str] = []
    kept: list[str] = []
    sets = []
    for one in trained:
        keep = one.attends.windowed and not one.needs_extension
        parameters = one.parameters if keep else candidate_spec(choice.name, one, length, choice.factor).parameters
        (kept if keep else scaled).append(one.rope.name)
        per_set[one.rope.name] = parameters
        sets.append(_reread(reading, one.rope, parameters, max_ctx))
    reading = dataclasses.replace(reading, rope_sets=tuple(sets), context=max_ctx)
    model = dataclasses.replace(real, rope=rope_model_of(reading), reading=reading, notes=[])
    relative = (f"factor {choice.factor:g} relative to {reference:,} ({reference_from}): runs to {length:,}"
                + ("" if not kept else f"; {', '.join(kept)} kept: its layers attend within their window"))
    return model, {"name": choice.name, "label": choice.label, "factor": choice.factor,
                   "rope_parameters": model_parameters(reading, per_set), "reference_length": reference,
                   "reference_from": reference_from, "length": length, "max_position_embeddings": max_ctx,
                   "scaled_sets": scaled, "kept_sets": kept, "relative_to": relative}
