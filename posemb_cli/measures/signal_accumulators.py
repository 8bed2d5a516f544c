"""The accumulators one pass over a position signal feeds (see ``block_reader.py``).

Notation: L rows (positions), F features, K the largest offset, M sampled positions.

Each takes blocks of rows in order and keeps float64 running figures: the row
norms' range, the neighbour cosines, the largest |x|, a strided sample of rows
for the all-pairs distance, the closest pair up to K apart, and a comparison
with a second read of the signal. Blocks may skip positions (a sampled pass):
each figure is then the same figure over the positions fed. Each figure equals the one its whole-table
function in ``neighbours.py`` or ``pairs.py`` gives (to float64 rounding of
the sums across blocks).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import cast

import torch

from posemb_cli.measures.neighbours import NeighbourTotals, _band_dots, neighbour_block_rows, row_norms
from posemb_cli.measures.sampling import evenly_spread
from posemb_cli.measures.ties import FirstLow, distance_noise, value_noise

# Values per sub-block of a float64 difference: its temporaries stay small.
_NORM_BLOCK_ELEMENTS = 1 << 18
_PEAK_BLOCK_ELEMENTS = 1 << 22  # rows of a peak sub-block: its reductions make no copy


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 signals stay float64; every other dtype is multiplied in float32."""
    return torch.float64 if dtype == torch.float64 else torch.float32


class NormsAndNeighbours:
    """Row norms (min, sum, max) and cos(row p, row p + k) for k = 1..K, from one norm per row."""

    def __init__(self, rows: int, width: int, max_offset: int, device, *, block_rows: int | None = None) -> None:
        self.rows, self.max_offset = rows, max_offset
        self.grain, self.group = neighbour_block_rows(width, max_offset, block_rows)
        self.overlap = max_offset
        self.totals = NeighbourTotals(max_offset, device)
        self.low, self.high, self.sum, self.count = math.inf, -math.inf, 0.0, 0
        # The last block's norms (n,) and dots (b, K) of row p with row p + k, for the accumulators after this one.
        self.norms: torch.Tensor | None = None
        self.dots: torch.Tensor | None = None

    def feed(self, start: int, stop: int, rows: torch.Tensor) -> None:
        norms = row_norms(rows)  # (n,) float64: the block and its overlap
        self.norms = norms
        own = norms[:stop - start]
        self.low, self.high = min(self.low, float(own.min())), max(self.high, float(own.max()))
        self.sum += float(own.sum())
        self.count += stop - start
        compute = compute_dtype(rows.dtype)
        self.dots = torch.zeros(stop - start, self.max_offset, dtype=torch.float64, device=rows.device)
        for first in range(start, stop, self.grain):
            last = min(first + self.grain, stop)
            if min(last + self.max_offset, self.rows) <= first + 1:  # the last row has no neighbour after it
                break
            dots = _band_dots(rows, first - start, last - start, self.max_offset, self.group, compute)  # (b, K)
            self.dots[first - start:last - start] = dots
            self.totals.fold(dots, norms, start, first, self.rows)

    def neighbours(self) -> list[dict]:
        return self.totals.result()

    def norm_stats(self, dim: int) -> dict:
        """The ``table`` JSON object: rows, width and the smallest, mean and largest row norm of the rows fed."""
        return {"rows": self.rows, "dim": dim, "norm_min": self.low, "norm_mean": self.sum / self.count,
                "norm_max": self.high}


class LargestAbs:
    """``pairs.largest_abs``: largest |x| overall (never a NaN), the first row within rounding noise of it
    (``ties.value_noise`` of the signal's dtype), over the first half, and the norms' range."""

    grain, overlap = 1, 0

    def __init__(self, rows: int) -> None:
        self.half = max(1, (rows + 1) // 2)
        self.first = 0.0
        self.peak: FirstLow[int] = FirstLow()  # over -|x|: the first row within noise of the largest
        self.low, self.high = math.inf, 0.0

    def feed(self, start: int, stop: int, rows: torch.Tensor) -> None:
        step = max(1, _PEAK_BLOCK_ELEMENTS // max(rows.shape[1], 1))
        noise = value_noise(rows.dtype)
        for first in range(start, stop, step):
            block = rows[first - start:min(first + step, stop) - start]
            # (b,) the largest |x| of each row, exact in the signal's dtype, from its largest and smallest value
            # (two reductions, no |x| copy; a row with a NaN has a NaN peak, which never counts).
            peaks = torch.maximum(block.amax(dim=1), block.amin(dim=1).neg()).to(torch.float64)
            norms = torch.linalg.vector_norm(block.to(compute_dtype(rows.dtype)), dim=1)
            self.low, self.high = min(self.low, float(norms.min())), max(self.high, float(norms.max()))
            self.peak.feed(-peaks, noise * peaks.abs(), partial(operator.add, first))
            if first < self.half:
                self.first = max(self.first, float(peaks[: self.half - first].nan_to_num(nan=0.0).max()))

    def result(self) -> dict:
        return {"max_abs": max(0.0, -self.peak.low), "at": self.peak.pick(0), "first_half": self.first,
                "norm_min": self.low if math.isfinite(self.low) else 0.0, "norm_max": self.high}


class StridedSample:
    """Every s-th position measured of a computed signal, kept for the all-pairs distance (M rows).

    When every position is measured these are positions 0, s, 2s, ...; a sampled pass (``sampling.py``)
    keeps every s-th of the positions it measures, in order. The (M, F) sample is allocated once, at the
    first block, so that no small allocation outlives a block in between the blocks' own (which would
    fragment the C heap). A stored table needs none: ``measure_signal`` takes a strided view of its rows.
    """

    grain, overlap = 1, 0

    def __init__(self, stride: int, measured: int) -> None:
        self.stride = stride
        self.count = -(-measured // stride)  # M
        self.seen = 0  # positions measured in the blocks before this one
        self.rows: torch.Tensor | None = None

    def feed(self, start: int, stop: int, rows: torch.Tensor) -> None:
        if self.rows is None:
            self.rows = rows.new_empty(self.count, rows.shape[1])
        skip = -self.seen % self.stride  # the block's first kept row
        if skip < stop - start:
            taken = rows[skip:stop - start:self.stride]
            at = (self.seen + skip) // self.stride
            self.rows[at:at + taken.shape[0]] = taken
        self.seen += stop - start

    def sample(self) -> torch.Tensor:
        if self.rows is None:
            raise ValueError("StridedSample.sample() before any block was fed")
        return self.rows  # (M, F)


def neighbour_pair(first: int, flat: int, max_offset: int) -> tuple[int, int]:
    """The pair (p, p + k) at ``flat`` of a (b, K) block of neighbour values whose row 0 is position ``first``."""
    p = first + flat // max_offset
    return p, p + 1 + flat % max_offset


class NeighbourMinimum:
    """The closest pair (p, p + k), k = 1..K, and its exact distance (``pairs.neighbour_min_distance``).

    Squared distances come from the norms and the neighbour dot products that ``norms_from``
    (fed before it, same block) computed: no product of its own. The first pair (p, then k)
    within its rounding noise (``ties.distance_noise``) of the smallest squared distance is
    reported, with its distance measured exactly in float64 from its two rows.
    """

    grain = 1

    def __init__(self, rows: int, max_offset: int, norms_from: NormsAndNeighbours) -> None:
        self.rows, self.norms_from = rows, norms_from
        self.max_offset = max_offset
        self.overlap = max_offset
        self.search: FirstLow[dict] = FirstLow()
        self.first_pair: dict | None = None  # positions 0 and 1: reported when no distance compares (NaN rows)

    def feed(self, start: int, stop: int, rows: torch.Tensor) -> None:
        norms, dots = self.norms_from.norms, self.norms_from.dots  # (n,) and (b, K) float64: this block's
        if norms is None or dots is None:
            raise ValueError("NeighbourMinimum reads the block after NormsAndNeighbours has")
        squares = norms ** 2
        device = rows.device
        noise = distance_noise(rows.dtype, compute_dtype(rows.dtype), rows.shape[1])
        offsets = torch.arange(1, self.max_offset + 1, device=device)[None, :]  # (1, K)
        if start == 0:
            self.first_pair = self._at(rows, 0, 0, None, 0)
        step = max(1, _NORM_BLOCK_ELEMENTS // self.max_offset)  # rows per sub-block: small (s, K) temporaries
        for first in range(0, stop - start, step):
            last = min(first + step, stop - start)
            partner = torch.arange(first, last, device=device)[:, None] + offsets  # (s, K), block-relative
            valid = start + partner < self.rows
            partner = partner.clamp(max=rows.shape[0] - 1)
            scale = squares[first:last, None] + squares[partner]  # (s, K)
            dist2 = torch.where(valid, scale - 2 * dots[first:last], math.inf)
            spread = scale.mul_(noise)
            self.search.feed(dist2, spread, partial(self._at, rows, start, first, spread))

    def _at(self, rows: torch.Tensor, start: int, first: int, noise: torch.Tensor | None, flat: int) -> dict:
        """The pair at ``flat`` of the (s, K) distances from row ``first`` of the block at ``start``, measured
        exactly in float64 from its rows."""
        i, j = neighbour_pair(first, flat, self.max_offset)
        exact = float(torch.linalg.vector_norm(rows[j].to(torch.float64) - rows[i].to(torch.float64)))
        spread = 0.0 if noise is None else float(noise.reshape(-1)[flat])
        return {"distance": exact, "pair": [start + i, start + j], "noise": spread}

    def result(self) -> dict:
        if self.first_pair is None:
            raise ValueError("NeighbourMinimum.result() before any block was fed")
        return self.search.pick(self.first_pair)


class SignalMatch:
    """Compares blocks with the same rows of a second read (a rebuild), as the pass goes.

    Args:
        second: the second read: ``signal(start, stop)`` of a rebuilt scheme, or consecutive row
            blocks of any sizes from row 0 (a learned table's draw repeated, read in full).
        blocks: the pass's blocks, in order (``block_reader.plan_blocks``).
        count: blocks compared with a ``signal`` second read: this many, spread evenly over the pass
            (the first and the last among them), whatever L is. A second read drawn in consecutive
            blocks is read, so compared, in full.
    """

    grain, overlap = 1, 0

    def __init__(self, second: Callable[[int, int], torch.Tensor] | Iterator[torch.Tensor],
                 blocks: Sequence[tuple[int, int]], count: int) -> None:
        self.second = second
        self.total = len(blocks)
        self.drawn = isinstance(second, Iterator)
        chosen = range(self.total) if self.drawn else evenly_spread(self.total, count)
        self.chosen = {blocks[index][0] for index in chosen}  # starts of the blocks compared
        self.compared = len(self.chosen)
        self.pending: torch.Tensor | None = None
        self.diff, self.same, self.values = 0.0, True, 0

    def feed(self, start: int, stop: int, rows: torch.Tensor) -> None:
        mine = rows[:stop - start]
        if isinstance(self.second, Iterator):  # compared piece by piece as drawn: no block-sized copy
            self.values += mine.numel()
            at = 0
            for other in self._pieces(stop - start):
                self._compare(mine[at:at + other.shape[0]], other)
                at += other.shape[0]
            if at < stop - start:  # the second read ended early
                self.same, self.diff = False, math.inf
            return
        if start not in self.chosen:
            return
        self.values += mine.numel()
        self._compare(mine, self.second(start, stop))

    def _compare(self, mine: torch.Tensor, other: torch.Tensor) -> None:
        if other.shape != mine.shape or other.dtype != mine.dtype:
            self.same, self.diff = False, math.inf
            return
        if torch.equal(mine, other.to(mine.device)):
            return  # bit-identical: no difference to measure
        self.same = False
        step = max(1, _NORM_BLOCK_ELEMENTS // max(mine.shape[1], 1))
        for at in range(0, mine.shape[0], step):
            a, b = mine[at:at + step].to(torch.float64), other[at:at + step].to(mine.device, torch.float64)
            self.diff = max(self.diff, float((a - b).abs().max()) if a.numel() else 0.0)

    def _pieces(self, need: int) -> Iterator[torch.Tensor]:
        """Consecutive row pieces of the second read covering ``need`` rows (fewer if it ends), no copy."""
        while need > 0:
            part = self.pending if self.pending is not None else next(cast(Iterator[torch.Tensor], self.second), None)
            self.pending = None
            if part is None:
                return
            if part.shape[0] > need:
                part, self.pending = part[:need], part[need:]
            need -= part.shape[0]
            yield part
