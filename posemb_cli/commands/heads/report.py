"""``posemb heads``'s report: per layer and head, the share of weight on each RoPE pair and the positional kernel.

The JSON form is ``posemb.heads/1`` (docs/json-contract.md); the terminal renderer and the figure
read the same objects. No torch here.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from posemb_cli.run.documents import Shown
from posemb_cli.run.head_pairs import SetBands

HEADS_SCHEMA = "posemb.heads/1"

__all__ = ["HEADS_SCHEMA", "HeadFigures", "HeadsReport", "LayerHeads", "Pick", "SetBands"]


@dataclass(frozen=True)
class HeadFigures:
    head: int
    kv_head: int
    pair_share: list[float]
    high_share: float
    beyond_critical_share: float
    label: str
    kernel: list[float]  # one score per distance of its layer's RoPE set (SetBands.distances)

    def to_dict(self, distances: list[int]) -> dict:
        return {"head": self.head, "kv_head": self.kv_head, "pair_share": self.pair_share,
                "high_share": self.high_share, "beyond_critical_share": self.beyond_critical_share,
                "label": self.label,
                "kernel": [{"distance": d, "score": s} for d, s in zip(distances, self.kernel, strict=True)]}


@dataclass(frozen=True)
class LayerHeads:
    """One layer: its RoPE set (None: no RoPE, and no heads reported), biases left out, and its heads."""

    layer: int
    rope_set: SetBands | None
    biases: tuple[str, ...] = ()
    heads: tuple[HeadFigures, ...] = ()

    @property
    def mean_share(self) -> list[float]:
        """The mean pair share over the layer's heads (heads without shares left out), one per pair."""
        rows = [head.pair_share for head in self.heads if all(math.isfinite(v) for v in head.pair_share)]
        return [sum(column) / len(rows) for column in zip(*rows, strict=True)] if rows else []

    def to_dict(self, distances: list[int]) -> dict:
        bands = self.rope_set
        return {"layer": self.layer, "rope": bands is not None, "rope_set": None if bands is None else bands.name,
                "critical_pair": None if bands is None else bands.critical_pair,
                "high_pairs": None if bands is None else bands.high_pairs, "biases": list(self.biases),
                "mean_pair_share": self.mean_share,
                "heads": [head.to_dict(self.kernel_distances(distances)) for head in self.heads]}

    def kernel_distances(self, distances: list[int]) -> list[int]:
        """The distances of this layer's kernels: its set's (a sliding set stops at its window), else ``distances``."""
        bands = self.rope_set
        return distances if bands is None or bands.distances is None else bands.distances


@dataclass(frozen=True)
class Pick:
    layer: int
    head: int
    share: float

    def to_dict(self) -> dict:
        return {"layer": self.layer, "head": self.head, "share": self.share}


@dataclass(frozen=True)
class HeadsReport(Shown):
    """``posemb heads``: which RoPE frequencies each trained head's query and key weights use.

    ``pictures``: whether the terminal form draws its heatmap and kernels (the CLI's ``--no-plot``).
    """

    source: dict
    model: dict
    distances: list[int]
    sets: list[SetBands]
    layers: list[LayerHeads]
    most_high: list[Pick]
    most_beyond: list[Pick]
    pictures: bool = True

    @property
    def rotary_pairs(self) -> int | None:
        """P when every RoPE set has the same number of pairs, else None."""
        found = {one.rotary_pairs for one in self.sets}
        return found.pop() if len(found) == 1 else None

    @property
    def critical_pair(self) -> int | None:
        """The critical pair when every RoPE set has the same one, else None (see each set's)."""
        found = {one.critical_pair for one in self.sets}
        return found.pop() if len(found) == 1 else None

    @property
    def labels(self) -> dict[str, int]:
        counts = {"positional": 0, "semantic": 0, "mixed": 0}
        for layer in self.layers:
            for head in layer.heads:
                counts[head.label] += 1
        return counts

    def head(self, layer: int, head: int) -> HeadFigures:
        return self.layers[layer].heads[head]

    def to_dict(self) -> dict:
        return {"schema": HEADS_SCHEMA, "source": self.source, "model": self.model,
                "rotary_pairs": self.rotary_pairs, "critical_pair": self.critical_pair,
                "distances": self.distances, "rope_sets": [one.to_dict() for one in self.sets],
                "labels": self.labels,
                "most": {"high": [pick.to_dict() for pick in self.most_high],
                         "beyond_critical": [pick.to_dict() for pick in self.most_beyond]},
                "layers": [layer.to_dict(self.distances) for layer in self.layers]}

    def with_resolved(self, resolved: dict) -> HeadsReport:
        """The report whose source says how MODEL was resolved."""
        return dataclasses.replace(self, source={**self.source, "resolved": resolved})

