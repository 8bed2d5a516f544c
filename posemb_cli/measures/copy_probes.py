"""Copy probes: can the model retrieve a span it saw d tokens earlier? Placed over a window, scored from one forward.

Notation: L the window (tokens), T the trained length, ``losses[p]`` and ``hits[p]`` the loss and the
top-1 hit (the most likely next token is the one that comes) of predicting token p + 1 from tokens
0..p, for p = 0..L-2.

- A probe is a span of ``SPAN`` = 16 random ids written at position ``first`` and the same ids again at
  ``repeat`` = first + d. The ids are drawn from the window's own ids (its text's), less the tokenizer's
  special ids: no unused or special token, and nothing but the first span tells what the repeat holds.
- Distances d (``distance_grid``): 32, 128, 512, the powers of two from 1,024, the quarter steps of T up to
  twice T (T/4, T/2, 3T/4, ..., 2T: the finest steps where an unscaled model's retrieval should end), 7T/8 (near
  T, with room for its repeats before T) and L - 2·SPAN (the longest in the window: its first span at
  ``START``, its repeat ending at L); each from 32 to L - 2·SPAN.
- Regions: ``within`` T, the whole repeat before T (repeat + SPAN <= T, so every scored prediction is made
  inside the trained length); ``beyond`` T, the repeat from T on (repeat >= T).
- Layout (``place_probes``): up to ``PER_REGION`` = 3 probes per (distance, region), in rounds of one probe
  per (distance, region): within T, from the longest distance to the shortest, then beyond T the same (so that a
  short window probes both regions, and every distance it can once before any twice); each repeat drawn
  uniformly among the positions where both spans fit: no span starts before ``START`` = 16 (the text's
  beginning and its special tokens stay), and any two spans keep ``MARGIN`` = 8 text tokens between them. A
  (distance, region) without room gets fewer, or none. Deterministic for a seed (NumPy's ``default_rng``), the
  pool of ids, L and T.
- Scoring (``score_probes``): a probe's scored predictions are the repeat's 2nd to 16th tokens, the token
  positions [repeat + 1, repeat + SPAN) (the first repeat token cannot be known before it comes), each
  predicted from every position before it: the losses and hits p = repeat .. repeat + SPAN - 2. Its
  ``accuracy`` is the share of top-1 hits over them, its ``loss`` their mean loss (nats).
- ``by_distance``: per distance, the mean over its probes (all, then within and beyond T apart).
- ``holds_to``: the largest distance whose mean accuracy is at least ``THRESHOLD`` = 0.5, as it is at every
  shorter distance measured (over all probes, and within and beyond T apart); None where even the shortest
  falls below.
- ``kept_losses``: the predictions of the text's own tokens in a window the probes were written over (p with
  token p + 1 outside every span). The measurement no longer needs it: the text's loss comes from a forward of
  its own, on the ids given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["FORWARD", "MARGIN", "PER_REGION", "REGIONS", "SEED", "SPAN", "START", "THRESHOLD", "DistanceScore",
           "Probe", "ProbeScore", "RegionScore", "Retrieval", "distance_grid", "holds_to", "kept_losses",
           "place_probes", "probe_mask", "probe_pool", "retrieval", "score_probes", "write_probes"]

SPAN = 16
MARGIN = 8
START = SPAN
PER_REGION = 3
SHORT = (32, 128, 512)
SEED = 34
THRESHOLD = 0.5
REGIONS = ("within", "beyond")
FORWARD = "own"  # the probes run in a forward of their own; "shared" (before) wrote them over the loss's


@dataclass(frozen=True)
class Probe:
    """A span of ``SPAN`` ids at ``first`` and again at ``first + distance``, the repeat ``region`` of T."""

    distance: int
    region: str
    first: int
    ids: tuple[int, ...]

    @property
    def repeat(self) -> int:
        return self.first + self.distance

    @property
    def scored(self) -> tuple[int, int]:
        """The token positions [from, to) whose predictions are scored: the repeat's 2nd to last."""
        return self.repeat + 1, self.repeat + SPAN


def distance_grid(length: int, trained_length: int) -> list[int]:
    """The distances probed in a window of ``length`` with trained length T, shortest first (empty: none fits)."""
    top = length - START - SPAN
    grid = set(SHORT)
    power = 1024
    while power <= top:
        grid.add(power)
        power *= 2
    grid.update(step * trained_length // 4 for step in range(1, 9))
    grid.update((7 * trained_length // 8, top))
    return sorted(distance for distance in grid if SHORT[0] <= distance <= top)


def probe_pool(ids: np.ndarray, special_ids: Iterable[int] = ()) -> tuple[np.ndarray, tuple[int, ...]]:
    """The distinct ids of the window, less the special ids; and the special ids it held, left out."""
    distinct = np.unique(np.asarray(ids, dtype=np.int64))
    special = np.asarray(sorted({int(one) for one in special_ids}), dtype=np.int64)
    special_held = np.isin(distinct, special)
    return distinct[~special_held], tuple(int(one) for one in distinct[special_held])


def _repeats(distance: int, region: str, length: int, trained_length: int) -> tuple[int, int]:
    """The range [low, high] of repeat positions of a probe at ``distance`` in ``region`` (empty when low > high)."""
    low = START + distance
    if region == "within":
        return low, trained_length - SPAN
    return max(low, trained_length), length - SPAN


def place_probes(length: int, trained_length: int, pool: np.ndarray, seed: int = SEED) -> tuple[Probe, ...]:
    """The probes of a window of ``length`` (see the module docstring), their ids drawn from ``pool``."""
    pool = np.asarray(pool, dtype=np.int64)
    if pool.size == 0:
        return ()
    rng = np.random.default_rng(seed)
    blocked = np.zeros(length, dtype=bool)  # a span may not start here: too near a span placed
    cells = [(distance, region) for region in REGIONS for distance in reversed(distance_grid(length, trained_length))]
    out: list[Probe] = []
    for _ in range(PER_REGION):
        for distance, region in cells:
            low, high = _repeats(distance, region, length, trained_length)
            if low > high:
                continue
            repeats = np.arange(low, high + 1)
            free = repeats[~blocked[repeats] & ~blocked[repeats - distance]]
            if free.size == 0:
                continue
            repeat = int(free[rng.integers(free.size)])
            for start in (repeat - distance, repeat):
                blocked[max(0, start - SPAN - MARGIN + 1):start + SPAN + MARGIN] = True
            ids = rng.choice(pool, size=SPAN, replace=pool.size < SPAN)
            out.append(Probe(distance, region, repeat - distance, tuple(int(one) for one in ids)))
    return tuple(sorted(out, key=lambda probe: (probe.distance, REGIONS.index(probe.region), probe.first)))


def write_probes(ids: np.ndarray, probes: Sequence[Probe]) -> np.ndarray:
    """A copy of the window's ``ids`` with every probe's span written at its first and its repeat."""
    out = np.array(ids, dtype=np.int64, copy=True)
    for probe in probes:
        out[probe.first:probe.first + SPAN] = probe.ids
        out[probe.repeat:probe.repeat + SPAN] = probe.ids
    return out


def probe_mask(length: int, probes: Sequence[Probe]) -> np.ndarray:
    """(L,) True at the token positions a probe's spans hold."""
    mask = np.zeros(length, dtype=bool)
    for probe in probes:
        mask[probe.first:probe.first + SPAN] = True
        mask[probe.repeat:probe.repeat + SPAN] = True
    return mask


def kept_losses(length: int, probes: Sequence[Probe]) -> np.ndarray:
    """(L - 1,) True at the losses of the text: those whose next token (p + 1) is no probe's."""
    return ~probe_mask(length, probes)[1:]


@dataclass(frozen=True)
class ProbeScore:
    """One probe scored in the forward ``row``: top-1 accuracy and mean loss over its scored predictions."""

    probe: Probe
    row: int
    accuracy: float
    loss: float

    def to_dict(self) -> dict:
        probe = self.probe
        return {"distance": probe.distance, "region": probe.region, "row": self.row, "first": probe.first,
                "repeat": probe.repeat, "scored": list(probe.scored), "accuracy": self.accuracy,
                "loss": _finite(self.loss)}


@dataclass(frozen=True)
class RegionScore:
    """The mean accuracy and loss of ``probes`` probes."""

    probes: int
    accuracy: float
    loss: float

    def to_dict(self) -> dict:
        return {"probes": self.probes, "accuracy": self.accuracy, "loss": _finite(self.loss)}


@dataclass(frozen=True)
class DistanceScore:
    """One distance: its probes together, and within and beyond T apart (None: no probe there)."""

    distance: int
    every: RegionScore
    within: RegionScore | None
    beyond: RegionScore | None

    def region(self, name: str | None) -> RegionScore | None:
        return self.every if name is None else getattr(self, name)

    def to_dict(self) -> dict:
        return {"distance": self.distance, **self.every.to_dict(),
                "within": None if self.within is None else self.within.to_dict(),
                "beyond": None if self.beyond is None else self.beyond.to_dict()}


def score_probes(probes: Sequence[Probe], losses: np.ndarray, hits: np.ndarray, row: int = 0) -> tuple[ProbeScore, ...]:
    """Each probe's accuracy and loss from a window's (L - 1,) ``losses`` and top-1 ``hits``."""
    values = np.asarray(losses, dtype=np.float64)
    right = np.asarray(hits, dtype=bool)
    if values.shape != right.shape or values.ndim != 1:
        raise ValueError(f"losses and hits must be one window's (L - 1,) arrays, got {values.shape} and "
                         f"{right.shape}")
    out = []
    for probe in probes:
        predicted = slice(probe.repeat, probe.repeat + SPAN - 1)  # p predicts token p + 1
        if probe.repeat + SPAN - 1 > values.size:
            raise ValueError(f"a probe repeated at {probe.repeat} does not fit {values.size + 1} tokens")
        out.append(ProbeScore(probe, row, float(right[predicted].mean()), float(values[predicted].mean())))
    return tuple(out)


def _mean(scores: Sequence[ProbeScore]) -> RegionScore | None:
    if not scores:
        return None
    return RegionScore(len(scores), float(np.mean([one.accuracy for one in scores])),
                       float(np.mean([one.loss for one in scores])))


def by_distance(scores: Sequence[ProbeScore]) -> tuple[DistanceScore, ...]:
    """The probes' means per distance, shortest first."""
    out = []
    for distance in sorted({one.probe.distance for one in scores}):
        held = [one for one in scores if one.probe.distance == distance]
        every = _mean(held)
        assert every is not None
        out.append(DistanceScore(distance, every, _mean([one for one in held if one.probe.region == "within"]),
                                 _mean([one for one in held if one.probe.region == "beyond"])))
    return tuple(out)


def holds_to(distances: Sequence[DistanceScore], region: str | None = None,
             threshold: float = THRESHOLD) -> int | None:
    """The largest distance of ``region`` (None: all probes) whose accuracy, and that of every shorter one, is
    at least ``threshold``; None where the shortest falls below (or no probe lies in the region)."""
    held = None
    for one in sorted(distances, key=lambda item: item.distance):
        score = one.region(region)
        if score is None:
            continue
        if score.accuracy < threshold:
            break
        held = one.distance
    return held


HOLDS_RULE = (f"the largest distance whose probes' mean top-1 accuracy is at least {THRESHOLD:g}, as at every "
              "shorter distance probed (over all probes, and within and beyond T apart); null: not even at the "
              "shortest")


@dataclass(frozen=True)
class Retrieval:
    """The copy probes of one forward, scored: each probe, their means by distance, how far retrieval holds.

    ``grid`` the distances tried, ``pool`` how many distinct ids the spans were drawn from, ``left_out`` the
    special ids the window held that were not drawn, ``excluded`` the losses left out of the loss by position.
    """

    length: int
    trained_length: int
    seed: int
    grid: tuple[int, ...]
    pool: int
    left_out: tuple[int, ...]
    probes: tuple[ProbeScore, ...]
    by_distance: tuple[DistanceScore, ...]
    excluded: int

    def holds_to(self, region: str | None = None) -> int | None:
        return holds_to(self.by_distance, region)

    def note(self) -> str:
        if not self.probes:
            return (f"no probe fits a window of {self.length:,} tokens (one of fewer than {START + SHORT[0] + SPAN} "
                    "has none): the loss by position holds every position")
        return (f"the {len(self.probes)} probes are written over the window (the same ids for every candidate) "
                f"and run in a forward of their own ({self.excluded:,} predictions of probe tokens); the loss by "
                "position is that of the ids given, from a forward on them alone")

    def to_dict(self) -> dict:
        return {"span": SPAN, "seed": self.seed, "distances": list(self.grid),
                "pool": {"distinct": self.pool, "left_out": list(self.left_out)},
                "probes": [one.to_dict() for one in self.probes],
                "by_distance": [one.to_dict() for one in self.by_distance],
                "holds_to": {"distance": self.holds_to(), "within": self.holds_to("within"),
                             "beyond": self.holds_to("beyond"), "rule": HOLDS_RULE},
                "threshold": THRESHOLD, "forward": FORWARD, "note": self.note(), "excluded_positions": self.excluded}


def retrieval(probes: Sequence[Probe], losses: np.ndarray, hits: np.ndarray, *, trained_length: int,
              pool: int, left_out: Sequence[int] = (), row: int = 0, seed: int = SEED) -> Retrieval:
    """The probes scored on one forward's (L - 1,) ``losses`` and ``hits`` (see the module docstring)."""
    length = int(np.asarray(losses).size) + 1
    scores = score_probes(probes, losses, hits, row)
    excluded = int((~kept_losses(length, probes)).sum())
    return Retrieval(length, trained_length, seed, tuple(distance_grid(length, trained_length)), pool,
                     tuple(left_out), scores, by_distance(scores), excluded)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
