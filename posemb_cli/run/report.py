"""Result dataclasses and their JSON form (the stable contract: add keys, never rename)."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # annotations only: the report and its JSON form need no torch (a bad flag costs nothing)
    from posemb_cli.core.schemes.bands import Band
    from posemb_cli.measures.context_bound_key import ContextBound
    from posemb_cli.measures.decay import DecayPoint
    from posemb_cli.measures.distance_penalty import DistancePenalty
    from posemb_cli.measures.relative import RelativeDeviation
    from posemb_cli.measures.relative_bias import RelativeBiasProfile
    from posemb_cli.measures.scorecard import Scorecard
    from posemb_cli.measures.spectrum import Spectrum

INSPECT_SCHEMA = "posemb.inspect/1"
COMPARE_SCHEMA = "posemb.compare/1"


@dataclass(frozen=True)
class ParamCounts:
    token: int | None  # None: the model's token table is unknown (none in the file, or of another width)
    position: int

    @property
    def total(self) -> int | None:
        return None if self.token is None else self.token + self.position

    @property
    def overhead(self) -> float | None:
        """Positional parameters as a fraction of the token table's."""
        return None if self.token is None else self.position / self.token

    def to_dict(self) -> dict:
        return {"token": self.token, "position": self.position, "total": self.total, "overhead": self.overhead}


@dataclass(frozen=True)
class SignalFigures:
    """The figures of a scheme's position signal beyond the lesson's (relative check, decay bound, scorecard).

    Attributes:
        acts_on: where the position goes: "input", "queries and keys", "attention scores" or "nothing".
        relative: how far q.k strays from a function of m - n (token rows and positions together).
        long_term_decay: the RoFormer bound against distance; None without frequencies.
        full_turn_pairs: pairs that turn a full circle within ctx; None without frequencies.
        attention_factor: the factor on cos and sin (rope only).
        slopes: one per head (alibi only).
        attention_bias: the bias per head at offsets 0..K (alibi only).
        scorecard: the five properties of the position signal.
        context_bound: where the cosine sum of the frequencies first goes negative (frequency schemes).
        spectrum: the principal components of an additive table without frequencies (learned, checkpoint).
        relative_bias: a learned relative-attention bias against signed distance (T5).
        distance_penalty: the bias per head by distance and where it passes each level (alibi only).
        left_out: figure -> why it does not apply to this scheme's signal; people do not see those
            figures, JSON keeps them (alibi: neighbour similarity, the heatmap, boundedness).
    """

    acts_on: str
    relative: RelativeDeviation
    scorecard: Scorecard
    long_term_decay: list[DecayPoint] | None = None
    full_turn_pairs: int | None = None
    attention_factor: float | None = None
    slopes: list[float] | None = None
    attention_bias: list[dict] | None = None
    context_bound: ContextBound | None = None
    spectrum: Spectrum | None = None
    relative_bias: RelativeBiasProfile | None = None
    distance_penalty: DistancePenalty | None = None
    left_out: dict[str, str] | None = None

    def to_dict(self) -> dict:
        out: dict = {"acts_on": self.acts_on, **self.relative.to_dict(),
                     "long_term_decay": None if self.long_term_decay is None
                     else [point.to_dict() for point in self.long_term_decay]}
        if self.full_turn_pairs is not None:
            out["full_turn_pairs"] = self.full_turn_pairs
        if self.context_bound is not None:
            out["context_bound"] = self.context_bound.to_dict()
        if self.spectrum is not None:
            out["spectrum"] = self.spectrum.to_dict()
        if self.relative_bias is not None:
            out["relative_bias"] = self.relative_bias.to_dict()
        if self.attention_factor is not None:
            out["attention_factor"] = self.attention_factor
        if self.slopes is not None:
            out["slopes"] = self.slopes
            out["attention_bias"] = self.attention_bias
        if self.distance_penalty is not None:
            out["distance_penalty"] = self.distance_penalty.to_dict()
        if self.left_out is not None:
            out["left_out"] = self.left_out
        out["scorecard"] = self.scorecard.to_dict()
        return out


class SourceDescription(Protocol):
    """Where a real model's position signal came from (a checkpoint's table or a config)."""

    def source(self) -> dict: ...


@dataclass(frozen=True)
class NotedSource:
    """A source description with a note on how the token figures were obtained."""

    base: SourceDescription
    token_note: str

    def source(self) -> dict:
        return {**self.base.source(), "token_note": self.token_note}


@dataclass(frozen=True)
class SchemeReport:
    """Everything measured for one scheme on one batch."""

    scheme: str
    shapes: dict[str, list[int]]
    params: ParamCounts
    neighbour_similarity: list[dict] | None  # None: not defined for the signal (a bias per distance)
    table: dict | None  # None: no additive table (a bias per distance)
    coverage: dict | None = None  # the positions the signal pass measured: measures.sampling.Coverage.to_dict()
    bands: list[Band] | None = None
    signal: SignalFigures | None = None
    source: SourceDescription | None = None
    grid: dict | None = None  # a vision table's patch grid: measures.grid.grid_similarity
    layer_types: list[tuple[str, SchemeReport]] | None = None  # one analysis per layer type (Gemma 3)
    model: dict | None = None  # a real model's own shape (ModelReading.model_dict)
    layer_map: list[dict] | None = None  # a real model's layers, one record each (ModelReading.layer_map)
    pictures: dict = field(default_factory=dict, compare=False, repr=False)  # heatmaps: never in JSON
    methods: dict[str, str] | None = None  # how each figure reads the signal: run.diagnostics.figure_methods

    def to_dict(self) -> dict:
        out = {
            "scheme": self.scheme,
            "shapes": self.shapes,
            "params": self.params.to_dict(),
            "neighbour_similarity": self.neighbour_similarity,
            "table": self.table,
        }
        if self.coverage is not None:
            out["coverage"] = self.coverage
        if self.bands is not None:
            out["bands"] = [band.to_dict() for band in self.bands]
        if self.signal is not None:
            out.update(self.signal.to_dict())
        if self.source is not None:
            out["source"] = self.source.source()
        if self.grid is not None:
            out["grid"] = self.grid
        if self.layer_types is not None:
            out["layer_types"] = [{"layer_type": name, **report.to_dict()} for name, report in self.layer_types]
        if self.model is not None:
            out["model"] = self.model
        if self.layer_map is not None:
            out["layer_map"] = self.layer_map
        if self.methods is not None:  # the figures this object holds (a relative bias has no neighbour cosines)
            out["methods"] = {name: how for name, how in self.methods.items()
                              if out.get(name.split(".")[0]) is not None}
        return out


@dataclass(frozen=True)
class ResolvedSource:
    """A real model's ``source`` with how MODEL was resolved: ``resolved`` {name, path, found}."""

    base: SourceDescription
    resolved: dict

    def source(self) -> dict:
        return {**self.base.source(), "resolved": self.resolved}


def resolved_result(result: SchemeReport, resolved: dict) -> SchemeReport:
    """A scheme report (and each RoPE set's under ``layer_types``) whose source says how MODEL was resolved."""
    layer_types = None if result.layer_types is None else [
        (name, resolved_result(one, resolved)) for name, one in result.layer_types]
    source = None if result.source is None else ResolvedSource(result.source, resolved)
    return dataclasses.replace(result, source=source, layer_types=layer_types)


@dataclass(frozen=True)
class InspectReport:
    config: dict
    result: SchemeReport

    def to_dict(self) -> dict:
        return {"schema": INSPECT_SCHEMA, "config": self.config, **self.result.to_dict()}

    def with_resolved(self, resolved: dict) -> InspectReport:
        """The report whose source says how MODEL was resolved."""
        return dataclasses.replace(self, result=resolved_result(self.result, resolved))


@dataclass(frozen=True)
class CompareReport:
    """Schemes side by side; for ``compare MODEL ...``, ``column_keys`` holds per entry the keys it adds (``label``,
    ``scaling``, ``config``: the column's own effective settings)."""

    config: dict
    results: list[SchemeReport]
    column_keys: list[dict] | None = None

    def columns(self) -> list[SchemeReport]:
        """The results as people read them: each named by its column's label (a model, its RoPE set, its scaling)."""
        if self.column_keys is None:
            return list(self.results)
        return [dataclasses.replace(result, scheme=keys["label"])
                for result, keys in zip(self.results, self.column_keys, strict=True)]

    def to_dict(self) -> dict:
        entries = [result.to_dict() for result in self.results]
        if self.column_keys is not None:
            entries = [{**entry, **keys} for entry, keys in zip(entries, self.column_keys, strict=True)]
        return {"schema": COMPARE_SCHEMA, "config": self.config, "schemes": entries}

    def with_resolved(self, resolved: dict) -> CompareReport:
        """The report whose every source says how MODEL was resolved."""
        return dataclasses.replace(self, results=[resolved_result(one, resolved) for one in self.results])


def _finite_or_none(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite_or_none(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_none(item) for item in value]
    return value


def to_json(document: dict) -> str:
    """One line of strict JSON: floats that are not finite become null."""
    return json.dumps(_finite_or_none(document), allow_nan=False)
