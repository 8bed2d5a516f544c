"""One pass over a position signal, block by block, feeding several accumulators.

Notation: L rows (positions), F features, b rows per block, K rows of overlap.

A signal is anything that gives rows on request: ``signal(start, stop)`` ->
(stop - start, F), a slice of a stored table or rows computed from a formula.
The reader asks for each block once, with the K rows after it that the
neighbour measures need, and hands the same tensor to every accumulator; so
the working memory is a few blocks whatever L is, and no measure walks the
signal a second time. The blocks cover every position, or the runs of
positions a sampled pass measures (``sampling.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol

import torch

# Bytes of one block of the signal (before any accumulator's temporaries).
BLOCK_BYTES = 16 << 20

__all__ = ["Accumulator", "BLOCK_BYTES", "block_rows_for", "plan_blocks", "read_blocks"]


class Accumulator(Protocol):
    """What the reader feeds.

    Attributes:
        grain: rows the accumulator's own sub-blocks hold; a block of the reader is a multiple of it
            (except the last), so its sub-blocks fall where they would on the whole table.
        overlap: rows after each block the accumulator reads (K for neighbour measures).
    """

    grain: int
    overlap: int

    def feed(self, start: int, stop: int, rows: torch.Tensor) -> None:
        """Take positions start..stop-1; ``rows`` holds them and up to ``overlap`` rows after: (n, F)."""
        ...


def block_rows_for(width: int, element: int, grain: int, *, budget: int = BLOCK_BYTES) -> int:
    """Rows per block: the largest multiple of ``grain`` within ``budget`` bytes, at least one ``grain``."""
    per_row = max(1, width * element)
    return max(grain, budget // per_row // grain * grain)


def plan_blocks(
    accumulators: Sequence[Accumulator],
    spans: Sequence[tuple[int, int]],
    *,
    width: int,
    element: int,
    budget: int = BLOCK_BYTES,
) -> list[tuple[int, int]]:
    """The blocks ``read_blocks`` reads: each span cut into blocks of ``block_rows_for`` rows (its last shorter).

    Args:
        accumulators: their ``grain`` sets the block size (a multiple of every grain).
        spans: ``(start, stop)`` runs of positions to read, ascending and disjoint.
        width, element: F and the bytes of one element, to size the blocks to ``budget``.
    """
    grain = math.lcm(1, *(accumulator.grain for accumulator in accumulators))
    block = block_rows_for(width, element, grain, budget=budget)
    return [(start, min(start + block, stop)) for first, stop in spans for start in range(first, stop, block)]


def read_blocks(
    signal: Callable[[int, int], torch.Tensor],
    rows: int,
    accumulators: Sequence[Accumulator],
    blocks: Sequence[tuple[int, int]],
    *,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Read each block of ``signal`` once, with the rows after it the accumulators overlap, and feed it to each.

    Args:
        signal: ``signal(start, stop)`` -> (stop - start, F) rows of the signal.
        rows: L (no block reads past it).
        accumulators: fed in order, each with the same block.
        blocks: ``(start, stop)`` blocks in ascending order (``plan_blocks``).
        progress: called with the number of rows finished after each block.
    """
    overlap = max((accumulator.overlap for accumulator in accumulators), default=0)
    for start, stop in blocks:
        chunk = signal(start, min(stop + overlap, rows))  # (b + K, F)
        for accumulator in accumulators:
            accumulator.feed(start, stop, chunk)
        del chunk
        if progress is not None:
            progress(stop - start)
