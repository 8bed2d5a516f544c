"""The five properties a position signal should have, each measured with its threshold.

Works on any scheme that follows the protocol: it reads ``fingerprint()`` when
the scheme has one (rope, alibi) and ``table()`` otherwise, so a table loaded
from a checkpoint is scored like a built one. All-pairs work is blockwise
(never an L x L matrix) and above a pair budget runs on evenly strided positions.

Each property is ``{"value": x, "threshold": x, "pass": bool, "note": str}``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from posemb_cli.errors import PosembError
from posemb_cli.measures.pairs import (
    largest_abs,
    min_pair_distance,
    neighbour_min_distance,
    relative_fit,
    window_similarity,
)
from posemb_cli.measures.relative import probe_vectors, relative_deviation

PAIR_BUDGET = 1 << 22  # all-pairs distances computed exactly up to this many pairs
UNIQUENESS_EPS = 16  # closest pair must be farther apart than this many dtype epsilons (scaled)
GROWTH_LIMIT = 1.25  # the largest |x| may exceed the first half's by this factor
FIT_LIMIT = 0.05  # relative least-squares residual of PE(p+k) ~ M_k PE(p)
DEVIATION_LIMIT = 1e-3  # q.k deviation from f(m - n), relative to the largest score

__all__ = ["scorecard", "signal"]


def signal(scheme, start: int = 0, stop: int | None = None) -> torch.Tensor:
    """The (rows, F) signal positions start..stop-1 carry: ``fingerprint`` or the additive rows."""
    if hasattr(scheme, "fingerprint"):
        return scheme.fingerprint(start, stop)
    stop = scheme.max_ctx if stop is None else stop
    if stop <= scheme.max_ctx:
        return scheme.table()[start:stop]
    return scheme(stop)[start:stop]


def _figure(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else "n/a"


def _entry(value: float, threshold: float, passed: bool, note: str) -> dict:
    return {"value": float(value), "threshold": float(threshold), "pass": bool(passed), "note": note}


def _uniqueness(table: torch.Tensor, pair_budget: int, max_offset: int, peak: float) -> dict:
    found = min_pair_distance(table, pair_budget=pair_budget)
    near = neighbour_min_distance(table, max_offset)
    value, (i, j) = min((found["distance"], found["pair"]), (near["distance"], near["pair"]))
    eps = torch.finfo(table.dtype).eps if table.dtype.is_floating_point else 0.0
    threshold = UNIQUENESS_EPS * eps * peak * math.sqrt(table.shape[1])
    where = (f"exact over all {found['pairs']:,} pairs" if found["stride"] == 1 else
             f"over all pairs of every {found['stride']}th position ({found['positions']:,} of {table.shape[0]:,}) "
             f"and every pair up to {max_offset} apart")
    note = (f"closest: positions {i} and {j}, {where}; threshold: rounding noise of the table's dtype, "
            f"{UNIQUENESS_EPS:g} x eps x largest |x| x sqrt(width)")
    return _entry(value, threshold, value > threshold, note)


def _boundedness(found: dict) -> dict:
    threshold = GROWTH_LIMIT * found["first_half"]
    spread = found["norm_max"] - found["norm_min"]
    note = (f"largest |x| at position {found['at']}; norms {found['norm_min']:.4g} … {found['norm_max']:.4g} "
            f"(spread {spread:.3g}); threshold {GROWTH_LIMIT:g} x largest |x| of the first half")
    return _entry(found["max_abs"], threshold, found["max_abs"] <= threshold, note)


def _relative_fit(table: torch.Tensor, max_offset: int) -> dict:
    fit = relative_fit(table, max_offset)
    note = (f"least squares PE(p+k) ~ M_k PE(p), worst at k={fit['offset']}, over {fit['rows']} rows x "
            f"{fit['features']} features; value = residual / |PE(p+k)|")
    return _entry(fit["residual"], FIT_LIMIT, fit["residual"] <= FIT_LIMIT, note)


def _relative_scores(found: dict) -> dict:
    scale = found["scale"]
    value = found["deviation"] / scale if scale > 0 else 0.0
    varies = scale > 0 and found["spread"] > 1e-6 * scale
    note = (f"largest |q.k - f(m-n)| = {found['deviation']:.3g} over {found['pairs']} (m, n) pairs, "
            f"relative to the largest score {scale:.3g}")
    if not varies:
        note += "; the score is the same at every offset: no offset to express"
    return _entry(value, DEVIATION_LIMIT, value <= DEVIATION_LIMIT and varies, note)


def _extrapolation(scheme, max_offset: int) -> dict:
    ctx = int(scheme.max_ctx)
    try:
        with torch.no_grad():
            scheme(2 * ctx)
    except PosembError as exc:
        return _entry(ctx, 2 * ctx, False, f"refused at {2 * ctx}: {exc}")
    width = min(ctx, 4096)
    inside, beyond = signal(scheme, ctx - width, ctx), signal(scheme, ctx, ctx + width)
    near, far = (_figure(window_similarity(part)) for part in (inside, beyond))
    note = (f"served at {2 * ctx}: beyond ctx mean cos(k=1) {far} vs {near} within; "
            f"largest |x| {float(largest_abs(beyond)['max_abs']):.4g} vs {float(largest_abs(inside)['max_abs']):.4g}")
    return _entry(2 * ctx, 2 * ctx, True, note)


def _determinism(scheme, rebuild: Callable | None) -> dict:
    first = signal(scheme)
    if rebuild is None:
        second, how = signal(scheme), "two reads of the same table (no rebuild available)"
    else:
        second, how = signal(rebuild()), "two builds from the same settings"
    diff = 0.0
    step = max(1, (1 << 20) // max(first.shape[1], 1))
    for start in range(0, first.shape[0], step):
        a, b = first[start:start + step].to(torch.float64), second[start:start + step].to(torch.float64)
        diff = max(diff, float((a - b).abs().max()) if a.numel() else 0.0)
    same = torch.equal(first, second)
    return _entry(diff, 0.0, same, f"{how}: {'bit-identical' if same else 'differ'} over {first.numel():,} values")


def scorecard(
    scheme,
    *,
    rebuild: Callable | None = None,
    max_offset: int = 8,
    seed: int = 0,
    probe_std: float = 0.02,
    pair_budget: int = PAIR_BUDGET,
) -> dict:
    """Uniqueness, boundedness, relative expressiveness, extrapolation and determinism of one scheme.

    Args:
        scheme: any positional scheme (``max_ctx``, ``forward``, ``table()``; optionally ``fingerprint``,
            ``pair_scores`` and ``acts_on`` for schemes that act inside attention).
        rebuild: builds the same scheme again from the same settings, for determinism.
        max_offset: K, the offsets of the relative checks.
        seed, probe_std: the query/key pair of the q.k relative check.
        pair_budget: all-pairs distances are exact up to this many pairs, strided above.
    """
    with torch.no_grad():
        table = signal(scheme)
        in_attention = hasattr(scheme, "pair_scores")
        if in_attention:
            compute = torch.float64 if table.dtype == torch.float64 else torch.float32
            q, k = probe_vectors(scheme.dim, probe_std, seed=seed, device=table.device, dtype=compute)
            relative = _relative_scores(relative_deviation(scheme, q, k, max_offset=max_offset))
        else:
            relative = _relative_fit(table, max_offset)
        bounds = largest_abs(table)
        return {
            "uniqueness": _uniqueness(table, pair_budget, max_offset, bounds["max_abs"]),
            "boundedness": _boundedness(bounds),
            "relative": relative,
            "extrapolation": _extrapolation(scheme, max_offset),
            "determinism": _determinism(scheme, rebuild),
        }
