"""The weight each RoPE set's pairs carry: every head's pair shares as ``posemb heads`` measures them, or, for a
model read from its config alone, every pair alike; and one candidate's shares gathered per head, layer, set.

Heads: ``run.head_pairs.pair_shares`` reads the query and key weights one layer at a time (its progress bar)
and gives each head's ``pair_share`` (H, P); the extrapolated and compressed shares of a head are sums of
those shares over the pairs of that class, so they equal sums of ``posemb heads --json``'s pair shares.
A group's (layer's, set's, model's) figure is the mean over its heads (heads without shares left out);
its mean compression is weighted by each head's compressed share.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

import numpy as np

from posemb_cli.commands.extend.report import HeadShares
from posemb_cli.measures.extension import PairClasses, Shares, equal_weights, weighted_shares

__all__ = ["Gathered", "SetWeights", "concatenated", "gather", "heads_weights", "pair_weights", "summary"]


@dataclass(frozen=True)
class SetWeights:
    """One set's rows of weights: (layer, head or None, (P,) weights) per head, or per layer weighted by pairs."""

    rows: list[tuple[int, int | None, np.ndarray]]

    @property
    def by_heads(self) -> bool:
        return any(head is not None for _, head, _ in self.rows)


def heads_weights(shares: Mapping[int, np.ndarray], layers: tuple[int, ...]) -> SetWeights:
    """The pair shares of every head of ``layers``, from each layer's (H, P) shares (``run.head_pairs.pair_shares``)."""
    wanted = set(layers)
    return SetWeights([(layer, head, np.asarray(row, dtype=np.float64))
                       for layer, rows in shares.items() if layer in wanted for head, row in enumerate(rows)])


def pair_weights(layers: tuple[int, ...], pairs: int) -> SetWeights:
    """Every pair alike (1 / P), one row per layer."""
    row = equal_weights(pairs)[0]
    return SetWeights([(layer, None, row) for layer in layers])


def _mean(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else float("nan")


def _weighted_compression(shares: Shares) -> float:
    finite = np.isfinite(shares.compressed) & (shares.compressed > 0)
    total = shares.compressed[finite].sum()
    return float((shares.mean_compression[finite] * shares.compressed[finite]).sum() / total) if total > 0 else \
        float("nan")


@dataclass(frozen=True)
class Gathered:
    """A group's figures: mean extrapolated and compressed shares, mean compression and compression cost, the mean
    sped-up share and speed-up cost."""

    extrapolated: float
    compressed: float
    mean_compression: float
    cost: float
    sped_up: float = 0.0
    speed_cost: float = 0.0


def summary(shares: Shares) -> Gathered:
    return Gathered(_mean(shares.extrapolated), _mean(shares.compressed), _weighted_compression(shares),
                    _mean(shares.cost), _mean(shares.sped_up), _mean(shares.speed_cost))


def concatenated(parts: list[Shares]) -> Shares:
    return Shares(*(np.concatenate([getattr(part, one.name) for part in parts]) for one in fields(Shares)))


def gather(weights: SetWeights, pairs: PairClasses) -> tuple[Shares, list[HeadShares], list[HeadShares]]:
    """The set's shares on one candidate's classes: all rows, each row (a head, or a layer by pairs), each layer."""
    matrix = np.stack([row for _, _, row in weights.rows]) if weights.rows else np.zeros((0, pairs.classes.size))
    shares = weighted_shares(matrix, pairs)
    rows = [HeadShares(layer, head, float(shares.extrapolated[i]), float(shares.compressed[i]),
                       float(shares.mean_compression[i]), float(shares.cost[i]))
            for i, (layer, head, _) in enumerate(weights.rows)]
    layers: list[HeadShares] = []
    for layer in dict.fromkeys(layer for layer, _, _ in weights.rows):
        picked = np.asarray([i for i, (at, _, _) in enumerate(weights.rows) if at == layer])
        one = summary(Shares(*(getattr(shares, field.name)[picked] for field in fields(Shares))))
        layers.append(HeadShares(layer, None, one.extrapolated, one.compressed, one.mean_compression, one.cost))
    return shares, rows, layers
