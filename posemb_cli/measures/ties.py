"""Picks that rounding noise cannot move: values equal within their noise are ties, won by the first.

Notation: n candidates in the order of their position (row, then offset), v their
values, t >= 0 the rounding noise of each value.

Which pair of rows is closest, which row holds the largest value, which offset fits
worst: a report prints the position, so it must not depend on the CPU. Values that are
equal in exact arithmetic (every neighbour pair of a RoPE signal is equally far apart)
come out a few ulps apart, and which few ulps differs between CPU kernels. The rule:

- the minimum is found first, with its noise: u, the smallest ``v + t`` (the lowest value
  that some candidate is surely at or below, whatever the CPU);
- a candidate ties with it when it may be as low, within its own noise: ``v - t <= u``;
- the first candidate (lowest position, then lowest offset) that ties wins.

Values equal in exact arithmetic and computed within their noise all tie (each ``v - t``
is at most the exact value, which is at most u), so the first of them wins on every CPU;
a candidate farther than both noises above the minimum never ties.

A maximum is the minimum of -v. ``FirstLow`` takes the values block by block in
position order and gives the pick a search over the whole array gives, whatever the
blocks. Only the record lows of ``v - t`` (each below every earlier one) can be the
first to tie. A record low in the same bucket as the record low before it (buckets of
width g, the power of two at or below 1/64 of its noise) joins that one's run; a run
ties when the lowest bucket floor of its members is at most u, and is reported at its
first record. So a run stands for records within a bucket of it, and the runs that can
still tie (floor <= u so far) are the few that cross the buckets within one noise of
the running minimum: about a hundred at most for noises of one size, whatever the length.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Generic, TypeVar

import torch

__all__ = ["FirstLow", "distance_noise", "first_high", "first_low", "value_noise"]

Pick = TypeVar("Pick")

_CHUNK = 1 << 18  # values scanned at a time: temporaries of 2 MiB

# Dot products summed in another order (another CPU kernel, another block shape) differ by about
# sqrt(F) ulps of |a| |b|: this many times that is noise.
_SUM_ORDER_ULPS = 4.0
# One value of the data one ulp off (another CPU's cos or sin): this many ulps of the value.
_DATA_ULPS = 2.0


def _eps(dtype: torch.dtype) -> float:
    return float(torch.finfo(dtype).eps) if dtype.is_floating_point else 0.0


def distance_noise(data: torch.dtype, compute: torch.dtype, features: int) -> float:
    """Rounding noise of a squared distance ``|a|^2 + |b|^2 - 2 a.b``, per unit of ``|a|^2 + |b|^2``.

    ``4 sqrt(F) eps(compute) + 2 eps(data)``: the dot product summed in another order in the
    dtype it is multiplied in (float32 for every dtype but float64), and a value of the rows
    one ulp off in their own dtype. Float64 sums of float32 data carry float32's noise.
    """
    return _SUM_ORDER_ULPS * math.sqrt(max(features, 1)) * _eps(compute) + _DATA_ULPS * _eps(data)


def value_noise(data: torch.dtype) -> float:
    """Rounding noise of a value read or derived from data of ``data``'s dtype, per unit of the value: 4 eps."""
    return 2 * _DATA_ULPS * _eps(data)


class FirstLow(Generic[Pick]):
    """The first candidate within its noise of the minimum, over values fed block by block in order.

    Attributes:
        low: the minimum of every value fed so far (NaN values are never candidates).
        bound: u, the smallest ``v + t`` so far.
    """

    def __init__(self) -> None:
        self.low = self.bound = math.inf
        self._floor = math.inf  # lowest v - t so far: a record low is below it
        self._runs: list[list] = []  # [lowest bucket floor, pick] of each run that can still tie, in order
        self._open = False  # whether the last run may go on into the next block

    def feed(self, values: torch.Tensor, noise: torch.Tensor | float, where: Callable[[int], Pick]) -> None:
        """Take the next block of candidates.

        Args:
            values: the block's values in position order (any shape, read flattened).
            noise: t, the same shape as ``values`` or one number for all; NaN or infinite: no noise.
            where: the pick of the candidate at a flat index of the block.
        """
        flat = values.reshape(-1)
        spread = torch.as_tensor(noise, dtype=torch.float64, device=flat.device).expand_as(values).reshape(-1)
        for first in range(0, flat.numel(), _CHUNK):  # in chunks: the temporaries stay small
            self._feed(flat[first:first + _CHUNK], spread[first:first + _CHUNK], partial(_shifted, where, first))

    def _feed(self, v: torch.Tensor, t: torch.Tensor, where: Callable[[int], Pick]) -> None:
        least, widest = float(v.min()), float(t.max())
        if least >= self.bound and least - widest >= self._floor:
            return  # no record low (v - t stays at or above the lowest so far) and no new u: nothing changes
        v = v.to(torch.float64)
        if math.isnan(least):
            v = v.nan_to_num(nan=math.inf, posinf=math.inf, neginf=-math.inf)
            least = float(v.min())
        if not math.isfinite(widest):
            t = t.nan_to_num(nan=0.0, posinf=0.0, neginf=0.0)
        lows, highs = v - t, v + t  # (n,) an infinite value is its own bound
        self.low = min(self.low, least)
        self.bound = min(self.bound, float(highs.min()))
        prefix = torch.cummin(lows, 0).values
        before = torch.cat((prefix.new_tensor([self._floor]), prefix[:-1]))
        records = torch.nonzero(lows < before).flatten()  # strict: an equal later value never wins
        self._floor = min(self._floor, float(prefix[-1]))
        if records.numel():
            self._add_runs(records, lows[records], t[records], before[records], where)
        last = len(self._runs) - 1  # the open run is kept whatever its floor: later records may lower it
        self._runs = [run for at, run in enumerate(self._runs) if run[0] <= self.bound or (at == last and self._open)]

    def _add_runs(self, records: torch.Tensor, lows: torch.Tensor, noise: torch.Tensor, earlier: torch.Tensor,
                  where: Callable[[int], Pick]) -> None:
        """Group record lows (``earlier``: the record low before each) into runs, one bucket after another, and
        keep those that can tie."""
        grain = torch.where(noise > 0, torch.exp2(torch.floor(torch.log2(noise / 64))), 0.0)  # (r,)
        bucket = torch.where(grain > 0, torch.floor(lows / grain), lows)
        same = (grain > 0) & (torch.floor(earlier / grain) == bucket) & torch.isfinite(bucket)
        if not self._open:
            same[0] = False
        floors = torch.where(grain > 0, bucket * grain, lows)
        run = torch.cumsum(~same, 0) - 1  # -1: the records that go on with the open run of the block before
        if bool((run < 0).any()):
            self._runs[-1][0] = min(self._runs[-1][0], float(floors[run < 0].min()))
        starts = torch.nonzero(~same).flatten()
        if not starts.numel():
            return
        lowest = floors.new_full((starts.numel(),), math.inf).scatter_reduce(
            0, run[run >= 0], floors[run >= 0], "amin")  # (runs,) the lowest floor of each run
        keep = lowest <= self.bound
        keep[-1] = True  # the last run may go on
        for at in torch.nonzero(keep).flatten().tolist():
            self._runs.append([float(lowest[at]), where(int(records[starts[at]]))])
        self._open = True

    def pick(self, default: Pick) -> Pick:
        """The first candidate that ties with the minimum; ``default`` when no value compared."""
        for floor, found in self._runs:
            if floor <= self.bound:
                return found
        return default


def _shifted(where: Callable[[int], Pick], first: int, index: int) -> Pick:
    return where(first + index)


def first_low(values: torch.Tensor, noise: torch.Tensor | float) -> int | None:
    """Flat index of the first value within its noise of the minimum (``FirstLow`` over one block)."""
    search: FirstLow[int | None] = FirstLow()
    search.feed(values, noise, lambda index: index)
    return search.pick(None)


def first_high(values: torch.Tensor, noise: torch.Tensor | float) -> int | None:
    """Flat index of the first value within its noise of the maximum."""
    return first_low(-values, noise)
