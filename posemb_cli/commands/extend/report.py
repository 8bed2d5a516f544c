"""``posemb extend``'s report: per RoPE set and candidate scaling, every pair's class against the model as trained,
the heads' shares on each class, the candidates ranked, and the recommended block.

The JSON form is ``posemb.extend/1`` (docs/json-contract.md); the terminal renderer and the figure read the
same objects. With ``--text`` or ``--ids`` the report also holds the runtime's measurement of every candidate
(``measurement``): each candidate's JSON object gains ``measured``, the ranking an ``agreement`` beside it, and
the document a ``measurement`` object (the rest of ``runtime.MeasuredRun.to_dict()``). No torch here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from posemb_cli.run.documents import Shown
from posemb_cli.sources.model.reading import Attends

if TYPE_CHECKING:
    from posemb_cli.measures.loss_prediction import LossChange
    from posemb_cli.runtime import MeasuredRun

EXTEND_SCHEMA = "posemb.extend/1"

__all__ = ["EXTEND_SCHEMA", "AtRisk", "Candidate", "ExtendReport", "ExtendSet", "HeadShares", "PairFigure",
           "SetCandidate"]


@dataclass(frozen=True)
class PairFigure:
    pair: int
    inv_freq_trained: float
    inv_freq: float
    cls: str
    compression: float
    trained_span: float
    target_span: float

    def to_dict(self) -> dict:
        return {"pair": self.pair, "inv_freq_trained": self.inv_freq_trained, "inv_freq": self.inv_freq,
                "class": self.cls, "compression": self.compression, "trained_span": self.trained_span,
                "target_span": self.target_span}


@dataclass(frozen=True)
class HeadShares:
    """One head's (or, weighted by pairs, one layer's) shares on a candidate's classes."""

    layer: int
    head: int | None
    extrapolated_share: float
    compressed_share: float
    mean_compression: float
    compression_cost: float

    def to_dict(self) -> dict:
        out = {"layer": self.layer, "head": self.head, "extrapolated_share": self.extrapolated_share,
               "compressed_share": self.compressed_share, "mean_compression": self.mean_compression,
               "compression_cost": self.compression_cost}
        if self.head is None:
            del out["head"]
        return out


@dataclass(frozen=True)
class AtRisk:
    """A head most at risk under a candidate: ``by`` ``extrapolated`` (its extrapolated share) or ``compressed``
    (its compression cost, ``share`` then its compressed share)."""

    layer: int
    head: int
    by: str
    share: float
    mean_compression: float
    compression_cost: float

    def to_dict(self) -> dict:
        return {"layer": self.layer, "head": self.head, "by": self.by, "share": self.share,
                "mean_compression": self.mean_compression, "compression_cost": self.compression_cost}


@dataclass(frozen=True)
class SetCandidate:
    """One candidate for one RoPE set at the target."""

    scaling: str
    factor: float | None
    attention_factor: float
    rope_parameters: dict
    set_parameters: dict
    pairs: list[PairFigure]
    weighted_by: str
    extrapolated_share: float
    compressed_share: float
    mean_compression: float
    compression_cost: float
    counts: dict[str, int]
    layers: list[HeadShares] = field(default_factory=list)
    heads: list[HeadShares] = field(default_factory=list)
    at_risk: list[AtRisk] = field(default_factory=list)
    sped_up_share: float = 0.0
    speed_up_cost: float = 0.0

    def to_dict(self) -> dict:
        return {"scaling": self.scaling, "factor": self.factor, "attention_factor": self.attention_factor,
                "rope_parameters": self.rope_parameters, "set_parameters": self.set_parameters,
                "pairs": [pair.to_dict() for pair in self.pairs], "counts": self.counts,
                "weighted_by": self.weighted_by, "extrapolated_share": self.extrapolated_share,
                "compressed_share": self.compressed_share, "mean_compression": self.mean_compression,
                "compression_cost": self.compression_cost, "sped_up_share": self.sped_up_share,
                "speed_up_cost": self.speed_up_cost, "layers": [one.to_dict() for one in self.layers],
                "heads": [one.to_dict() for one in self.heads], "at_risk": [one.to_dict() for one in self.at_risk]}


@dataclass(frozen=True)
class ExtendSet:
    """One RoPE set: as trained, what the target asks of it, and its candidates (none when it needs no extension)."""

    name: str
    layers: list[int]
    base: float
    rotary_pairs: int
    layout: str
    trained_length: int
    trained_from: str
    reference_length: int
    reference_from: str
    published: dict
    attends_to: Attends
    needs_extension: bool
    why: str
    critical_pair: int
    candidates: list[SetCandidate]

    def to_dict(self) -> dict:
        return {"name": self.name, "layers": self.layers, "base": self.base, "rotary_pairs": self.rotary_pairs,
                "layout": self.layout, "trained_length": self.trained_length, "trained_from": self.trained_from,
                "reference_length": self.reference_length, "reference_from": self.reference_from,
                "published": self.published, "attends_to": self.attends_to.to_dict(),
                "needs_extension": self.needs_extension, "why": self.why, "critical_pair": self.critical_pair,
                "candidates": [one.to_dict() for one in self.candidates]}


@dataclass(frozen=True)
class Candidate:
    """One candidate over the whole model (every set that needs extension), as ranked."""

    scaling: str
    factor: float | None
    factor_rule: str
    rope_parameters: dict
    extrapolated_share: float
    compressed_share: float
    mean_compression: float
    score: float
    needs_fine_tuning: str
    evidence: str
    llama_cpp: list[str] | None
    llama_cpp_note: str
    rank: int
    sped_up_share: float = 0.0
    speed_up_cost: float = 0.0
    predicted: LossChange | None = None
    published_recipe: bool = False  # the publisher's own inference-time recipe for this length (model card)

    def to_dict(self) -> dict:
        return {"scaling": self.scaling, "factor": self.factor, "factor_rule": self.factor_rule,
                "published_recipe": self.published_recipe,
                "rope_parameters": self.rope_parameters, "extrapolated_share": self.extrapolated_share,
                "compressed_share": self.compressed_share, "mean_compression": self.mean_compression,
                "sped_up_share": self.sped_up_share, "speed_up_cost": self.speed_up_cost,
                "predicted": None if self.predicted is None else {"loss_change": self.predicted.to_dict()},
                "score": self.score, "needs_fine_tuning": self.needs_fine_tuning, "evidence": self.evidence,
                "llama_cpp": self.llama_cpp, "llama_cpp_note": self.llama_cpp_note, "rank": self.rank}

    def ranking_entry(self) -> dict:
        return {"rank": self.rank, "scaling": self.scaling, "factor": self.factor, "score": self.score,
                "extrapolated_share": self.extrapolated_share, "needs_fine_tuning": self.needs_fine_tuning,
                "predicted_window_change": None if self.predicted is None else self.predicted.window.value}


@dataclass(frozen=True)
class ExtendReport(Shown):
    """``posemb extend``: candidate RoPE scalings for a model at a target length, ranked, and the block to paste.

    With ``text=`` or ``ids=``, ``measurement`` holds each candidate measured on the model (``runtime.MeasuredRun``:
    ``measurement.measured("yarn").losses`` are its per-position losses) beside the predicted ranking.
    ``pictures``: whether the terminal form draws the pair strips and loss curves (the CLI's ``--no-plot``).
    """

    source: dict
    model: dict
    to: int
    factor: float | None
    scalings: list[str]
    left_out: list[dict]
    weighted_by: str
    weighted_note: str
    sets: list[ExtendSet]
    candidates: list[Candidate]
    rule: str
    recommendation: dict
    measurement: MeasuredRun | None = None
    pictures: bool = True
    written_config: dict | None = None

    @property
    def ranking(self) -> list[Candidate]:
        return sorted(self.candidates, key=lambda one: one.rank)

    def to_dict(self) -> dict:
        measured = None if self.measurement is None else self.measurement.to_dict()
        candidates = [one.to_dict() for one in self.candidates]
        if measured is not None:
            # a candidate the runtime could not run (measurement.left_out) has measured null
            candidates = [{**shown, "measured": measured["measured"].get(one.scaling)}
                          for shown, one in zip(candidates, self.candidates, strict=True)]
        out = {"schema": EXTEND_SCHEMA, "source": self.source, "model": self.model, "to": self.to,
               "factor": self.factor, "scalings": self.scalings, "left_out": self.left_out,
               "weighted_by": self.weighted_by, "weighted_note": self.weighted_note,
               "sets": [one.to_dict() for one in self.sets], "candidates": candidates,
               "ranking": [one.ranking_entry() for one in self.ranking]}
        if measured is not None:
            out["agreement"] = measured["agreement"]
        out.update(rule=self.rule, recommendation=self.recommendation)
        if self.written_config is not None:
            out["written_config"] = self.written_config
        if measured is not None:
            out["measurement"] = {key: value for key, value in measured.items() if key not in ("measured", "agreement")}
        return out

