"""Every figure of a position signal that one pass over its rows gives, from that one pass.

Notation: L rows (positions), F features, K the largest offset.

``measure_signal`` reads the signal block by block (``block_reader.py``) and
feeds, from each block, the row norms, the neighbour cosines at offsets
1..K, the largest |x|, the strided sample of the all-pairs distance, the
closest pair up to K apart, the comparison with a second read (a rebuild,
for determinism), and the bin sums of any heatmap asked for. The working memory is a few blocks whatever L
is; the sample is at most ``pair_budget`` pairs' worth of rows. The blocks cover every position, or the
positions a ``sampling.Coverage`` names (a long computed signal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from posemb_cli.core.schemes.base import AdditiveTable
from posemb_cli.core.schemes.protocols import ClosedFormSignal, PositionScheme
from posemb_cli.measures.block_reader import BLOCK_BYTES, plan_blocks, read_blocks
from posemb_cli.measures.heatmap import Heatmap, HeatmapSums
from posemb_cli.measures.pairs import closest_in_sample, sample_stride
from posemb_cli.measures.sampling import DETERMINISM_BLOCKS, Coverage, every_position
from posemb_cli.measures.signal_accumulators import (
    LargestAbs,
    NeighbourMinimum,
    NormsAndNeighbours,
    SignalMatch,
    StridedSample,
)

__all__ = ["SignalPass", "measure_signal"]


@dataclass(frozen=True)
class SignalPass:
    """What one pass over an (L, F) signal measured.

    Attributes:
        rows, width, dtype: L, F and the signal's dtype.
        neighbours: K dicts ``{"offset", "mean", "min", "max"}`` of cos(row p, row p + k) over the positions p
            measured, with ``"exact"`` (the formula's value in float64) for a ``ClosedFormSignal``.
        norms: ``{"rows", "dim", "norm_min", "norm_mean", "norm_max"}`` of the signal's rows measured.
        bounds: ``pairs.largest_abs``'s dict over the positions measured.
        closest: ``pairs.min_pair_distance``'s dict (strided above the pair budget; of the positions measured).
        near: ``pairs.neighbour_min_distance``'s dict, pairs (p, p + k) with p measured.
        diff, same, values: largest |difference| from the second read, whether bit-identical, values compared.
        compared, blocks: blocks compared with the second read, of the pass's blocks.
        drawn: the second read was drawn in consecutive blocks (a learned table's rebuild): compared in full.
        how: what the second read was.
        coverage: the positions measured (every one, or a sample: ``measures.sampling``).
        heatmaps: the pictures asked for (``heatmaps`` argument), by name: never in JSON.
    """

    rows: int
    width: int
    dtype: torch.dtype
    neighbours: list[dict]
    norms: dict
    bounds: dict
    closest: dict
    near: dict
    diff: float
    same: bool
    values: int
    compared: int
    blocks: int
    drawn: bool
    how: str
    coverage: Coverage
    heatmaps: dict[str, Heatmap] = field(default_factory=dict, compare=False, repr=False)


def measure_signal(
    scheme: PositionScheme,
    *,
    max_offset: int,
    pair_budget: int,
    second: Callable[[int, int], torch.Tensor] | Iterator[torch.Tensor] | None = None,
    how: str = "two reads of the same table (no rebuild available)",
    coverage: Coverage | None = None,
    determinism_blocks: int = DETERMINISM_BLOCKS,
    block_rows: int | None = None,
    block_bytes: int = BLOCK_BYTES,
    progress: Callable[[int], None] | None = None,
    heatmaps: dict[str, int] | None = None,
) -> SignalPass:
    """One pass over ``scheme.signal`` feeding every accumulator.

    Args:
        scheme: any positional scheme; its ``signal(start, stop)`` is read in blocks, never whole.
        max_offset: K, 1 <= K < L.
        pair_budget: the all-pairs distance is exact up to this many pairs, strided above.
        second: the second read (a rebuild): its ``signal(start, stop)``, or its rows in consecutive
            blocks (read in full); by default the scheme's own signal read again.
        how: what ``second`` is, for the determinism note.
        coverage: the positions measured (``sampling.coverage_of``); by default every one.
        determinism_blocks: blocks compared with a ``signal`` second read, spread evenly over the pass.
        block_rows: rows of the neighbour products (by default ``neighbour_similarity``'s).
        block_bytes: bytes of one block of the signal the reader asks for (a multiple of block_rows rows).
        progress: called with the number of rows finished after each block.
        heatmaps: pictures to accumulate from the same blocks: name -> cells per side (``measures.heatmap``).
    """
    rows = int(scheme.max_ctx)
    if not 1 <= max_offset < rows:
        raise ValueError(f"max_offset {max_offset} must be in [1, {rows})")
    coverage = coverage or every_position(rows)
    first_row = scheme.signal(0, 1)
    width, dtype, device = int(first_row.shape[1]), first_row.dtype, first_row.device
    element = first_row.element_size()
    if second is None:
        second = scheme.signal
    stride = sample_stride(coverage.measured, pair_budget)
    norms = NormsAndNeighbours(rows, width, max_offset, device, block_rows=block_rows)
    # A stored table's sample is a strided view of its rows (matrix products take a row stride as it
    # is): no copy. A computed signal's rows are kept as the pass goes.
    stored = isinstance(scheme, AdditiveTable) and scheme.stored and not coverage.sampled
    sample = scheme.table()[::stride] if stored else StridedSample(stride, coverage.measured)
    bounds, near = LargestAbs(rows), NeighbourMinimum(rows, max_offset, norms)
    pictures = {name: HeatmapSums(rows, width, cells, device) for name, cells in (heatmaps or {}).items()}
    kept = [sample] if isinstance(sample, StridedSample) else []
    blocks = plan_blocks([norms, bounds, *kept, near, *pictures.values()], coverage.spans, width=width,
                         element=element, budget=block_bytes)
    match = SignalMatch(second, blocks, determinism_blocks)
    with torch.no_grad():
        read_blocks(scheme.signal, rows, [norms, bounds, *kept, near, match, *pictures.values()], blocks,
                    progress=progress)
        closest = closest_in_sample(sample.sample() if isinstance(sample, StridedSample) else sample, stride)
    if coverage.sampled:  # the sample's indices count measured positions: back to positions
        closest = {**closest, "pair": [coverage.position(index) for index in closest["pair"]]}
    return SignalPass(rows=rows, width=width, dtype=dtype, neighbours=_with_exact(scheme, norms.neighbours()),
                      norms=norms.norm_stats(width), bounds=bounds.result(), closest=closest,
                      near=near.result(), diff=match.diff, same=match.same, values=match.values,
                      compared=match.compared, blocks=match.total, drawn=match.drawn, how=how, coverage=coverage,
                      heatmaps={name: sums.result() for name, sums in pictures.items()})


def _with_exact(scheme: PositionScheme, neighbours: list[dict]) -> list[dict]:
    """Each offset's entry with ``exact``, the formula's cosine in float64, where the scheme has one."""
    exact = scheme.exact_neighbour_similarity(len(neighbours)) if isinstance(scheme, ClosedFormSignal) else None
    if exact is None:
        return neighbours
    return [{**entry, "exact": value} for entry, value in zip(neighbours, exact, strict=True)]
