"""The five properties a position signal should have, each measured with its threshold.

Works on any ``PositionScheme``: it reads the scheme's ``signal()`` (the table
rows of an additive scheme, what position p carries for rope and alibi), so a
table loaded from a checkpoint is scored like a built one. All-pairs work is blockwise
(never an L x L matrix) and above a pair budget runs on evenly strided positions.

Each property is a ``PropertyScore``; its JSON form is
``{"value": x, "threshold": x, "pass": bool, "note": str}`` (docs/json-contract.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields

import torch

from posemb_cli.core.dtypes import rounding_level
from posemb_cli.core.schemes.base import length_refusal
from posemb_cli.core.schemes.protocols import (
    AttentionScheme,
    BiasScheme,
    FormulaTable,
    PositionScheme,
    RotaryScheme,
)
from posemb_cli.core.wording import every_nth, general, within_rounding
from posemb_cli.measures.pairs import largest_abs, relative_fit, relative_fit_rows, window_similarity
from posemb_cli.measures.relative import RelativeDeviation, probe_vectors, relative_deviation
from posemb_cli.measures.sampling import DETERMINISM_BLOCKS, Coverage
from posemb_cli.measures.signal_pass import SignalPass, measure_signal
from posemb_cli.measures.ties import first_low

PAIR_BUDGET = 1 << 22  # all-pairs distances computed exactly up to this many pairs
UNIQUENESS_EPS = 16  # closest pair must be farther apart than this many dtype epsilons (scaled)
GROWTH_LIMIT = 1.25  # the largest |x| may exceed the first half's by this factor
FIT_LIMIT = 0.05  # relative least-squares residual of PE(p+k) ~ M_k PE(p)
DEVIATION_LIMIT = 1e-3  # q.k deviation from f(m - n), relative to the largest score

__all__ = ["PropertyScore", "Scorecard", "scorecard"]


def _figure(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else "n/a"


@dataclass(frozen=True)
class PropertyScore:
    """One property measured against its threshold."""

    value: float
    threshold: float
    passed: bool
    note: str
    applies: bool = True  # False: the property has nothing to measure for this scheme (shown as n/a)
    why_not: str = ""  # where it does not apply, why, in a few words (the note says it too)
    judged: str | None = None  # extrapolation: "formula" or "table", what was judged
    rounding: float | None = None  # relative: the value's rounding level; a value at or below it is rounding

    @property
    def shown(self) -> str:
        """The value for people: within rounding as its bound (``<x``), else four digits."""
        return general(self.value) if self.rounding is None else within_rounding(self.value, self.rounding)

    def to_dict(self) -> dict:
        # A property that does not apply gives no verdict: pass null beside applies false.
        verdict = self.passed if self.applies else None
        found = {"value": self.value, "threshold": self.threshold, "pass": verdict, "note": self.note}
        if self.judged is not None:
            found["judged"] = self.judged
        if self.rounding is not None:
            found["rounding_level"] = self.rounding
        return found if self.applies else {**found, "applies": False}


@dataclass(frozen=True)
class Scorecard:
    """The five properties of one scheme's position signal."""

    uniqueness: PropertyScore
    boundedness: PropertyScore
    relative: PropertyScore
    extrapolation: PropertyScore
    determinism: PropertyScore

    def items(self) -> list[tuple[str, PropertyScore]]:
        return [(entry.name, getattr(self, entry.name)) for entry in fields(self)]

    def to_dict(self) -> dict:
        return {name: score.to_dict() for name, score in self.items()}


def _entry(value: float, threshold: float, passed: bool, note: str, *, applies: bool = True, why_not: str = "",
           judged: str | None = None, rounding: float | None = None) -> PropertyScore:
    return PropertyScore(float(value), float(threshold), bool(passed), note, applies, why_not, judged, rounding)


def _uniqueness(measured: SignalPass, max_offset: int) -> PropertyScore:
    found, near = measured.closest, measured.near
    # The two searches' picks, as squared distances: within its noise of the smaller, the first pair wins.
    picks = sorted((found, near), key=lambda pick: pick["pair"])
    squared = torch.tensor([pick["distance"] for pick in picks], dtype=torch.float64) ** 2
    winner = picks[first_low(squared, torch.tensor([pick["noise"] for pick in picks])) or 0]
    value, (i, j) = winner["distance"], winner["pair"]
    eps = torch.finfo(measured.dtype).eps if measured.dtype.is_floating_point else 0.0
    threshold = UNIQUENESS_EPS * eps * measured.bounds["max_abs"] * math.sqrt(measured.width)
    coverage = measured.coverage
    if coverage.sampled:
        kept = (f"all {found['pairs']:,} pairs of the {coverage.measured:,} sampled positions of {measured.rows:,}"
                if found["stride"] == 1 else
                f"all pairs of {every_nth(found['stride'], 'sampled position')} ({found['positions']:,} of the "
                f"{coverage.measured:,} sampled of {measured.rows:,})")
        where = f"over {kept} and every pair up to {max_offset} apart from a sampled position"
    elif found["stride"] == 1:
        where = f"exact over all {found['pairs']:,} pairs"
    else:
        where = (f"over all pairs of {every_nth(found['stride'])} ({found['positions']:,} of {measured.rows:,}) "
                 f"and every pair up to {max_offset} apart")
    note = (f"closest: positions {i} and {j}, {where}; threshold: rounding noise of the table's dtype, "
            f"{UNIQUENESS_EPS:g}*eps*max|x|*sqrt(width)")
    return _entry(value, threshold, value > threshold, note)


_GROWS_BY_DESIGN = "a bias that grows with distance is the design (-slope*|m-n|)"


def _boundedness(found: dict, coverage: Coverage, *, penalty: bool, rounding: float) -> PropertyScore:
    """The largest |x| against the first half's; for a bias per distance (``penalty``) it does not apply.

    A spread of the norms within ``rounding`` (relative) of the largest is written as that bound.
    """
    threshold = GROWTH_LIMIT * found["first_half"]
    spread = within_rounding(found["norm_max"] - found["norm_min"], rounding * abs(found["norm_max"]), digits=3)
    note = (f"largest |x| at position {found['at']}; norms {found['norm_min']:.4g} … {found['norm_max']:.4g} "
            f"(spread {spread}); threshold {GROWTH_LIMIT:g}*max|x| of the first half")
    if coverage.sampled:
        note += f"; over the {coverage.measured:,} sampled positions of {coverage.rows:,}"
    if penalty:
        note += f"; does not apply: {_GROWS_BY_DESIGN}"
        return _entry(found["max_abs"], threshold, False, note, applies=False, why_not=_GROWS_BY_DESIGN)
    return _entry(found["max_abs"], threshold, found["max_abs"] <= threshold, note)


def _relative_fit(scheme: PositionScheme, max_offset: int) -> PropertyScore:
    rows = int(scheme.max_ctx)
    # relative_fit reads at most its first 2048 + K rows: only those are built.
    table = scheme.signal(0, min(rows, relative_fit_rows(max_offset)))
    fit = relative_fit(table, max_offset)
    note = (f"least squares PE(p+k)~M_k*PE(p), worst at k={fit['offset']}, over {fit['rows']} rows x "
            f"{fit['features']} features; value = residual/|PE(p+k)|")
    return _entry(fit["residual"], FIT_LIMIT, fit["residual"] <= FIT_LIMIT, note,
                  rounding=rounding_level(table.dtype))


def _relative_scores(found: RelativeDeviation) -> PropertyScore:
    scale = found.scale
    value = found.deviation / scale if scale > 0 else 0.0
    varies = scale > 0 and found.spread > 1e-6 * scale
    deviation = within_rounding(found.deviation, found.rounding_bound, digits=3)
    note = (f"largest |q.k-f(m-n)| {'' if deviation.startswith('<') else '= '}{deviation} over {found.pairs} (m,n) "
            f"pairs, relative to the largest score {scale:.3g}")
    why_not = "the score is the same at every offset: no offset to express"
    if not varies:
        note += f"; {why_not}, so the property does not apply"
    return _entry(value, DEVIATION_LIMIT, value <= DEVIATION_LIMIT and varies, note, applies=varies,
                  why_not="" if varies else why_not, rounding=found.rounding)


def _extrapolation(scheme: PositionScheme, *, ctx_by: str, extend_advice: Callable[[int], str] | None
                   ) -> PropertyScore:
    """The longest length served, judging the formula where the scheme has one, else the table (``judged``).

    A formula scheme computed at any position (rope, alibi, none) serves 2L as built; a table built from a
    formula (sinusoidal) stops at L, but its formula gives rows past L, and those are judged; a table with
    no formula (learned, a checkpoint's) is judged as it is: it has no row L.
    """
    ctx = int(scheme.max_ctx)
    width = min(ctx, 4096)
    rows: Callable[[int, int], torch.Tensor]
    if scheme.serves(2 * ctx):
        judged, rows = "formula", scheme.signal
        how = f"judged: the formula, computed at any position; served at {2 * ctx}"
    elif isinstance(scheme, FormulaTable):
        judged, rows = "formula", scheme.rows
        how = (f"judged: the formula, which gives rows up to {2 * ctx} and beyond (the table built for ctx={ctx} "
               f"stops at position {ctx - 1}: a longer input is refused until it is built with a larger {ctx_by})")
    else:
        note = f"judged: the table (no formula gives its rows); refused at {2 * ctx}: {length_refusal(2 * ctx, ctx)}"
        return _entry(ctx, 2 * ctx, False, note, judged="table")
    inside, beyond = rows(ctx - width, ctx), rows(ctx, ctx + width)
    near, far = (_figure(window_similarity(part)) for part in (inside, beyond))
    note = (f"{how}: beyond ctx mean cos(k=1) {far} vs {near} within; "
            f"largest |x| {float(largest_abs(beyond)['max_abs']):.4g} vs {float(largest_abs(inside)['max_abs']):.4g}")
    unturned = _unturned_pairs(scheme, ctx)
    if unturned:
        pairs = len(scheme.bands() or [])
        note = (f"{note}; but {len(unturned)} of {pairs} rotary pairs ({_pair_span(unturned)}) never turn a full "
                f"circle within ctx {ctx} (ctx theta < 2pi): past it they turn through angles no position within ctx "
                "gave them (Liu et al.'s dimensions past the critical one)"
                + ("" if extend_advice is None else f"; {extend_advice(2 * ctx)}"))
        return _entry(ctx, 2 * ctx, False, note, judged=judged)  # served without a pair turning past: up to ctx
    return _entry(2 * ctx, 2 * ctx, True, note, judged=judged)


def _unturned_pairs(scheme: PositionScheme, ctx: int) -> list[int]:
    """RoPE's pairs that do not complete a turn within ``ctx`` positions: past it they turn further than ever."""
    if not isinstance(scheme, RotaryScheme):
        return []
    return [band.pair for band in scheme.bands() or [] if ctx * band.inv_freq < 2 * math.pi]


def _pair_span(pairs: list[int]) -> str:
    return f"pair {pairs[0]}" if len(pairs) == 1 else f"pairs {pairs[0]} to {pairs[-1]}"


def _determinism(measured: SignalPass) -> PropertyScore:
    same = measured.same
    where = f"{measured.values:,} values"
    if not measured.drawn and measured.compared == measured.blocks:  # a rebuild's signal read again
        where += (f", every block of the pass ({measured.blocks:,}); at any context at most {DETERMINISM_BLOCKS} "
                  "blocks, spread evenly with the first and the last, are compared")
    elif not measured.drawn:
        where += (f" in {measured.compared} of the pass's {measured.blocks:,} blocks, spread evenly with the first "
                  f"and the last (determinism is a property of the code path: at most {DETERMINISM_BLOCKS} blocks "
                  "at any context)")
    return _entry(measured.diff, 0.0, same, f"{measured.how}: {'bit-identical' if same else 'differ'} over {where}")


def scorecard(
    scheme: PositionScheme,
    *,
    rebuild: Callable[[], PositionScheme] | None = None,
    max_offset: int = 8,
    seed: int = 0,
    probe_std: float = 0.02,
    pair_budget: int = PAIR_BUDGET,
    measured: SignalPass | None = None,
    ctx_by: str = "ctx",
    extend_advice: Callable[[int], str] | None = None,
) -> Scorecard:
    """Uniqueness, boundedness, relative expressiveness, extrapolation and determinism of one scheme.

    Args:
        scheme: any positional scheme; one acting inside attention is scored on its attention scores.
        rebuild: builds the same scheme again from the same settings, for determinism.
        max_offset: K, the offsets of the relative checks.
        seed, probe_std: the query/key pair of the q.k relative check.
        pair_budget: all-pairs distances are exact up to this many pairs, strided above.
        measured: the pass over the signal already made (``measure_signal`` with the same K and
            budget, its second read a rebuild); by default it is made here, reading ``rebuild``.
        ctx_by: how the caller sets the context a table is built for, named in extrapolation's note.
        extend_advice: the advice, at a length, that extrapolation's note ends with where rotary pairs never turn
            within the context (what the caller offers to rank the scalings); None: none.
    """
    with torch.no_grad():
        if measured is None:
            measured = measure_signal(scheme, max_offset=max_offset, pair_budget=pair_budget,
                                      **rebuilt_rows(rebuild))
        if isinstance(scheme, AttentionScheme):
            compute = torch.float64 if measured.dtype == torch.float64 else torch.float32
            device = scheme.signal(0, 1).device
            q, k = probe_vectors(scheme.dim, probe_std, seed=seed, device=device, dtype=compute)
            relative = _relative_scores(relative_deviation(scheme, q, k, max_offset=max_offset))
        else:
            relative = _relative_fit(scheme, max_offset)
        return Scorecard(
            uniqueness=_uniqueness(measured, max_offset),
            boundedness=_boundedness(measured.bounds, measured.coverage, penalty=isinstance(scheme, BiasScheme),
                                     rounding=rounding_level(measured.dtype)),
            relative=relative,
            extrapolation=_extrapolation(scheme, ctx_by=ctx_by, extend_advice=extend_advice),
            determinism=_determinism(measured),
        )


def rebuilt_rows(rebuild: Callable[[], PositionScheme] | None) -> dict:
    """``measure_signal``'s ``second`` and ``how`` for a rebuild (or a second read when there is none)."""
    if rebuild is None:
        return {"how": "two reads of the same table (no rebuild available)"}
    return {"second": rebuild().signal, "how": "two builds from the same settings"}
