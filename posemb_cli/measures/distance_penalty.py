"""ALiBi's distance penalty per head: the bias at chosen distances, and where each head's weight drops below a level.

Notation: H heads, L max context, d = |m - n| the distance between query m and key n.

ALiBi adds ``bias_h(d) = -slope_h * d`` to the score; after the softmax a key at distance d keeps
``exp(bias_h(d))`` of the weight that the same score earns at distance 0. A level w (1% is
``w = 0.01``, a bias of ln w = -4.605) is passed at the first distance whose bias is below ln w:
``exp(bias) < w``. Every figure here is read from the scheme's own ``bias()``, in float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posemb_cli.core.schemes.protocols import BiasScheme

LEVELS = (0.5, 0.01)  # weights exp(bias) whose distance is reported: half, and one percent

__all__ = ["LEVELS", "DistancePenalty", "PenaltyLevel", "distance_penalty", "penalty_distances"]


@dataclass(frozen=True)
class PenaltyLevel:
    """Where each head's weight exp(bias) first drops below ``weight``.

    Attributes:
        weight: the level w of exp(bias), e.g. 0.01.
        bias: ln w, the bias that level is.
        distance: per head, the smallest distance d >= 1 with bias_h(d) < ln w; None for a head
            whose bias never gets there (a slope of 0).
    """

    weight: float
    bias: float
    distance: list[int | None]

    def to_dict(self) -> dict:
        return {"weight": self.weight, "bias": self.bias, "distance": self.distance}


@dataclass(frozen=True)
class DistancePenalty:
    """The bias each head adds by distance, and the distances where it passes each level.

    Attributes:
        heads: H.
        ctx: L; distances up to L - 1 occur within the context.
        by_distance: ``[{"distance": d, "bias": [per head]}]`` at ``penalty_distances(L)``.
        levels: one ``PenaltyLevel`` per level of ``LEVELS``.
    """

    heads: int
    ctx: int
    by_distance: list[dict]
    levels: list[PenaltyLevel]

    def to_dict(self) -> dict:
        return {"heads": self.heads, "ctx": self.ctx, "by_distance": self.by_distance,
                "levels": [level.to_dict() for level in self.levels]}


def penalty_distances(ctx: int) -> list[int]:
    """1, 2, 4, ... (the powers of two below L - 1), then L - 1, the farthest distance within the context."""
    last = max(ctx - 1, 1)
    distances = [1 << i for i in range(last.bit_length()) if 1 << i < last]
    return [*distances, last]


def _bias(scheme: BiasScheme, distances: list[int]) -> torch.Tensor:
    """bias_h(d) for each distance: queries at d against a key at 0, (H, len(distances)) float64."""
    device = scheme.slopes.device
    queries = torch.tensor(distances, dtype=torch.int64, device=device)
    key = torch.zeros(1, dtype=torch.int64, device=device)
    return scheme.bias(queries, key)[:, :, 0].to(torch.float64)  # (H, n)


def _first_below(scheme: BiasScheme, head: int, slope: float, level: float) -> int | None:
    """The smallest d >= 1 with bias_h(d) < level (< 0), from the formula d > -level / slope, checked on bias()."""
    if not slope > 0:
        return None
    guess = max(1, math.floor(-level / slope) + 1)
    # The formula's rounding may miss by one either way: settle it on the scheme's own bias.
    while guess > 1 and float(_bias(scheme, [guess - 1])[head, 0]) < level:
        guess -= 1
    while float(_bias(scheme, [guess])[head, 0]) >= level:
        guess += 1
    return guess


def distance_penalty(scheme: BiasScheme, ctx: int, levels: tuple[float, ...] = LEVELS) -> DistancePenalty:
    """The bias per head at ``penalty_distances(ctx)`` and, per level, where each head's weight drops below it.

    Args:
        scheme: a bias scheme (ALiBi): its ``bias()`` and ``slopes`` are read.
        ctx: L, the context the distances are chosen in.
        levels: the weights exp(bias) to locate, each in (0, 1).
    """
    with torch.no_grad():
        distances = penalty_distances(ctx)
        bias = _bias(scheme, distances)  # (H, n)
        slopes = scheme.slopes.to(torch.float64).tolist()
        by_distance = [{"distance": d, "bias": bias[:, index].tolist()} for index, d in enumerate(distances)]
        found = [PenaltyLevel(weight=w, bias=math.log(w),
                              distance=[_first_below(scheme, head, slope, math.log(w))
                                        for head, slope in enumerate(slopes)])
                 for w in levels]
    return DistancePenalty(heads=len(slopes), ctx=int(ctx), by_distance=by_distance, levels=found)
