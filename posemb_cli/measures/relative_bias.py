"""A learned relative-attention bias read against signed distance: per head, and where it levels off.

Notation: N buckets, H heads. Distance d is key position minus query position
(negative: the key comes before the query), as T5 measures it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posemb_cli.core.schemes.relative_bias import RelativeAttentionBias

__all__ = ["RelativeBiasProfile", "bias_distances", "relative_bias_profile"]


@dataclass(frozen=True)
class RelativeBiasProfile:
    """The bias each head adds at a log-spaced set of signed distances.

    Attributes:
        by_distance: ``[{"distance": d, "bucket": b, "bias": [per head]}]``, distance ascending.
        levels_off_at: per direction, the smallest |d| from which every distance shares the last bucket
            (``{"before": -d, "after": d}``; ``after`` is None for the decoder, which sees no later key).
    """

    buckets: int
    max_distance: int
    bidirectional: bool
    heads: int
    by_distance: list[dict]
    levels_off_at: dict

    def to_dict(self) -> dict:
        return {"buckets": self.buckets, "max_distance": self.max_distance, "bidirectional": self.bidirectional,
                "heads": self.heads, "by_distance": self.by_distance, "levels_off_at": self.levels_off_at}


def bias_distances(max_distance: int, *, bidirectional: bool) -> list[int]:
    """0, then 1, 2, 3, 4 and a sqrt(2)-spaced grid up to twice ``max_distance``, signed as the side sees keys."""
    magnitudes, step = {1, 2, 3, 4}, 4.0
    while step < 2 * max_distance:
        step *= 2 ** 0.5
        magnitudes.add(min(round(step), 2 * max_distance))
    signed = [-m for m in magnitudes] + [0] + ([m for m in magnitudes] if bidirectional else [])
    return sorted(signed)


def _level_off(scheme: RelativeAttentionBias, sign: int) -> int:
    """The smallest |d| (in direction ``sign``) from which the bucket stays the farthest one."""
    reach = torch.arange(0, 2 * scheme.max_distance + 1, device=scheme.weight.device) * sign
    buckets = scheme.bucket(reach)  # (2 max_distance + 1,)
    changed = (buckets != buckets[-1]).nonzero()
    return 0 if changed.numel() == 0 else int(changed[-1, 0]) + 1


def relative_bias_profile(scheme: RelativeAttentionBias) -> RelativeBiasProfile:
    """The bias per head at ``bias_distances``, read through the model's own bucket function."""
    distances = bias_distances(scheme.max_distance, bidirectional=scheme.bidirectional)
    relative = torch.tensor(distances, dtype=torch.long, device=scheme.weight.device)  # (A,)
    buckets = scheme.bucket(relative)  # (A,)
    values = scheme.weight[buckets].tolist()  # (A, H)
    rows = [{"distance": d, "bucket": int(b), "bias": row} for d, b, row in zip(distances, buckets.tolist(), values,
                                                                                strict=True)]
    levels = {"before": -_level_off(scheme, -1), "after": _level_off(scheme, 1) if scheme.bidirectional else None}
    return RelativeBiasProfile(buckets=scheme.buckets, max_distance=scheme.max_distance,
                               bidirectional=scheme.bidirectional, heads=scheme.heads, by_distance=rows,
                               levels_off_at=levels)
