"""Position-by-position cosine similarity, downsampled to a small picture.

Notation: L rows of the table, D features, n cells per side of the picture.

Cell (i, j) is the mean of cos(row p, row q) over p in bin i and q in bin j,
where the L positions are cut into n contiguous bins. Since a cosine is the dot
product of unit rows, that mean is ``(U_i . U_j) / (|bin i| |bin j|)`` with
``U_i`` the sum of the unit rows of bin i. So the exact block average costs
one pass over the table, O(L D), plus an (n, n) product: no L x L matrix is
ever built, whatever the table's size. Rows of norm zero have no direction;
they are left out of their bin.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# Elements of one block of rows converted to float64.
_BLOCK_ELEMENTS = 1 << 20


@dataclass(frozen=True)
class Heatmap:
    """An (n, n) picture of cos(row p, row q) and the positions each cell covers.

    Attributes:
        cells: (n, n) float64 mean cosines; NaN where a bin holds only zero rows.
        edges: (n + 1,) bin edges: cell i covers positions edges[i] .. edges[i + 1] - 1.
    """

    cells: np.ndarray
    edges: np.ndarray

    @property
    def size(self) -> int:
        return int(self.cells.shape[0])

    def distance_profile(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean cell value by bin distance j - i >= 0, and that distance in positions.

        Returns:
            (distances, means), both (n,): a coarse decay curve over the whole table.
        """
        n = self.size
        width = float(self.edges[-1]) / n
        means = np.array([np.nanmean(np.diagonal(self.cells, offset)) if np.isfinite(
            np.diagonal(self.cells, offset)).any() else np.nan for offset in range(n)])
        return np.arange(n) * width, means


def bin_edges(rows: int, size: int) -> np.ndarray:
    """Edges of ``min(size, rows)`` contiguous bins of nearly equal width over ``rows`` positions."""
    cells = max(1, min(size, rows))
    return np.linspace(0, rows, cells + 1).round().astype(np.int64)


def similarity_heatmap(table, size: int) -> Heatmap:
    """The block-averaged cosine similarity of every pair of rows of ``table``.

    Args:
        table: (L, D) torch tensor, any float dtype, any device.
        size: n, the most cells per side; the picture has min(n, L) cells.

    Returns:
        A ``Heatmap`` with exact block means, accumulated in float64.
    """
    rows, dim = table.shape
    return heatmap_of_rows(lambda start, stop: table[start:stop], rows, dim, size, device=table.device)


def heatmap_of_rows(read_rows: Callable, rows: int, dim: int, size: int, *, device=None) -> Heatmap:
    """``similarity_heatmap`` of rows produced block by block: ``read_rows(start, stop)`` -> (stop - start, D).

    For signals that are computed rather than stored, such as RoPE's rotated probes.
    """
    if device is None:  # where the rows live
        device = read_rows(0, 1).device
    sums = HeatmapSums(rows, dim, size, device)
    step = max(1, _BLOCK_ELEMENTS // max(dim, 1))
    for start in range(0, rows, step):
        stop = min(start + step, rows)
        sums.feed(start, stop, read_rows(start, stop).to(device=device))
    return sums.result()


class HeatmapSums:
    """The heatmap's one pass: per bin, the float64 sum of the unit rows and how many rows have a direction.

    An accumulator of ``measures.block_reader`` (so the signal pass can feed it the blocks it reads
    anyway), or fed by ``heatmap_of_rows``. ``result()`` gives the ``Heatmap``.
    """

    grain, overlap = 1, 0

    def __init__(self, rows: int, dim: int, size: int, device=None) -> None:
        import torch

        self.edges = bin_edges(rows, size)
        cells = len(self.edges) - 1
        self.sums = torch.zeros(cells, dim, dtype=torch.float64, device=device)  # (n, D)
        self.counts = torch.zeros(cells, dtype=torch.float64, device=device)

    def feed(self, start: int, stop: int, rows) -> None:
        import torch

        block = rows[:stop - start]
        if block.dtype != torch.float64:
            block = block.to(torch.float32)  # unit rows in float32, sums in float64
        # Bins are contiguous: the block splits at the bin edges inside it.
        first = int(np.searchsorted(self.edges, start, side="right")) - 1
        last = int(np.searchsorted(self.edges, stop - 1, side="right")) - 1
        step = max(1, _BLOCK_ELEMENTS // max(block.shape[1], 1))
        for cell in range(first, last + 1):
            low, high = max(start, int(self.edges[cell])), min(stop, int(self.edges[cell + 1]))
            for at in range(low, high, step):  # float32 unit rows a few MiB at a time
                part = block[at - start:min(at + step, high) - start]
                norms = torch.linalg.vector_norm(part, dim=1)
                nonzero = norms > 0
                units = part / torch.where(nonzero, norms, 1.0)[:, None]  # (b, D); zero rows stay zero
                self.sums[cell] += units.sum(0, dtype=torch.float64)
                self.counts[cell] += nonzero.sum()

    def result(self) -> Heatmap:
        gram = (self.sums @ self.sums.T).cpu().numpy()  # (n, n)
        counts = self.counts.cpu().numpy()
        with np.errstate(invalid="ignore", divide="ignore"):
            means = gram / np.outer(counts, counts)
        means[np.outer(counts, counts) == 0] = np.nan
        return Heatmap(cells=np.clip(means, -1.0, 1.0), edges=self.edges)
