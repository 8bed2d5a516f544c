"""Pure diagnostics: tensors in, plain numbers out.

Notation: L rows of a positional table, D features, K the largest offset.
Tables of 128k x 4096 are real inputs, so every function here reads the table
block by block: no L x L matrix, no second full copy, float64 accumulators.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import torch

# Elements of one block of rows whose norms are taken at once: its float64 temporaries stay in cache.
_BLOCK_ELEMENTS = 1 << 18
# neighbour_similarity reads blocks of about 2M elements (8 MiB of float32; the product's operands
# take about twice that) and multiplies them in groups of max(16, K) rows, so one batched product
# per block covers the band of K neighbours at about twice the work it needs, in few calls. Tuned
# with benchmarks/run.py on a 32768 x 4096 table, K = 16: 512-1024-row blocks ~0.18 s against
# ~0.4 s for the first commit's one (b, b + K - 1) product per 256-row block.
_NEIGHBOUR_BLOCK_ELEMENTS = 1 << 21
_MIN_GROUP_ROWS = 16
UNDEFINED_NOTE = "no pair at this offset has a cosine: a zero row has no direction"


def _compute_dtype(table: torch.Tensor) -> torch.dtype:
    """float64 tables stay float64; every other dtype is multiplied in float32."""
    return torch.float64 if table.dtype == torch.float64 else torch.float32


def _row_blocks(rows: int, block: int) -> Iterator[tuple[int, int]]:
    for start in range(0, rows, block):
        yield start, min(start + block, rows)


def row_norms(table: torch.Tensor) -> torch.Tensor:
    """Euclidean norm of every row, in float64, computed block by block.

    Returns:
        (L,) float64 tensor on the table's device.
    """
    rows, dim = table.shape
    block = max(1, _BLOCK_ELEMENTS // max(dim, 1))
    norms = torch.empty(rows, dtype=torch.float64, device=table.device)
    for start, stop in _row_blocks(rows, block):
        # dtype= casts inside the reduction: the same float64 norms as a float64 copy's, without the copy.
        norms[start:stop] = torch.linalg.vector_norm(table[start:stop], dim=1, dtype=torch.float64)
    return norms


def norm_stats(table: torch.Tensor, norms: torch.Tensor | None = None) -> dict:
    """Rows, width, and the smallest, mean and largest row norm."""
    norms = row_norms(table) if norms is None else norms
    return {
        "rows": int(table.shape[0]),
        "dim": int(table.shape[1]),
        "norm_min": float(norms.min()),
        "norm_mean": float(norms.mean()),
        "norm_max": float(norms.max()),
    }


def _band_dots(table: torch.Tensor, start: int, stop: int, max_offset: int, group: int,
               compute: torch.dtype) -> torch.Tensor:
    """Dot products of rows start..stop-1 with each of their next K rows, from one batched product.

    The rows go in groups of ``group`` (s); each group is multiplied with the s + K - 1 rows that
    follow its first row (an overlapping strided view of the block), which holds every pair (p, p + k).
    Partners past the end of the table come out as 0; the caller leaves them out.

    Returns:
        (b, K) float64, where b = stop - start and [i, k - 1] = row(start + i) . row(start + i + k).
    """
    rows, dim = table.shape
    count = stop - start
    groups = -(-count // group)
    need = groups * group + max_offset  # rows start .. start + need - 1
    chunk = table[start:min(start + need, rows)].to(compute)
    if chunk.shape[0] < need or not chunk.is_contiguous():  # the table's end or a strided table: a small copy
        padded = torch.zeros(need, dim, dtype=compute, device=table.device)
        padded[:chunk.shape[0]] = chunk
        chunk = padded
    grouped = chunk[:groups * group].view(groups, group, dim)  # (g, s, D)
    windows = chunk.as_strided((groups, group + max_offset - 1, dim), (group * dim, dim, 1),
                               chunk.storage_offset() + dim)  # (g, s + K - 1, D)
    band = torch.bmm(grouped, windows.transpose(1, 2))  # (g, s, s + K - 1)
    local = torch.arange(group, device=table.device)[:, None]  # (s, 1)
    offsets = torch.arange(1, max_offset + 1, device=table.device)[None, :]  # (1, K)
    column = (local + offsets - 1).expand(groups, group, max_offset)  # partner p + k sits in column i + k - 1
    return band.gather(2, column).reshape(groups * group, max_offset)[:count].to(torch.float64)  # (b, K)


def neighbour_block_rows(dim: int, max_offset: int, block_rows: int | None = None) -> tuple[int, int]:
    """Rows per block and per group of ``neighbour_similarity`` for a width of ``dim`` features.

    Returns:
        (block_rows, group): block_rows is a multiple of group.
    """
    if block_rows is None:
        block_rows = max(2 * max_offset, _NEIGHBOUR_BLOCK_ELEMENTS // max(dim, 1))
    group = max(1, min(block_rows, max(_MIN_GROUP_ROWS, max_offset)))
    return max(group, block_rows // group * group), group


class NeighbourTotals:
    """Float64 sum, count, min and max of cos(row p, row p + k) for k = 1..K, folded block by block."""

    def __init__(self, max_offset: int, device) -> None:
        self.max_offset = max_offset
        self.offsets = torch.arange(1, max_offset + 1, device=device)  # (K,)
        self.total = torch.zeros(max_offset, dtype=torch.float64, device=device)
        self.count = torch.zeros(max_offset, dtype=torch.float64, device=device)
        self.low = torch.full((max_offset,), math.inf, dtype=torch.float64, device=device)
        self.high = torch.full((max_offset,), -math.inf, dtype=torch.float64, device=device)

    def fold(self, dots: torch.Tensor, norms: torch.Tensor, first: int, start: int, rows: int) -> None:
        """Fold one block: ``dots`` (b, K) for positions start..start+b-1.

        Args:
            norms: row norms indexed by position - ``first``; they cover the block's partners up to L.
            rows: L, the signal's length (partners at L or beyond are left out).
        """
        count = dots.shape[0]
        if start + count - 1 + self.max_offset < rows and norms.stride(0) == 1:  # every partner inside: a strided view
            own = norms[start - first:start - first + count + self.max_offset]
            partners = own.as_strided((count, self.max_offset), (1, 1), own.storage_offset() + 1)  # (b, K)
            denominator = own[:count, None] * partners
            if bool((denominator > 0).all()):  # every pair has a cosine: the masks below would change nothing
                cosine = dots / denominator
                self.total += cosine.sum(0)
                self.count += count
                self.low = torch.minimum(self.low, cosine.amin(0))
                self.high = torch.maximum(self.high, cosine.amax(0))
                return
        device = dots.device
        local = torch.arange(count, device=device)[:, None]  # (b, 1)
        partner = start + local + self.offsets[None, :]  # (b, K): row p + k
        valid = partner < rows
        partner = partner.clamp(max=rows - 1)
        denominator = norms[start - first:start - first + dots.shape[0], None] * norms[partner - first]
        valid &= denominator > 0
        cosine = dots / torch.where(valid, denominator, 1.0)
        self.total += torch.where(valid, cosine, 0.0).sum(0)
        self.count += valid.sum(0)
        self.low = torch.minimum(self.low, torch.where(valid, cosine, math.inf).amin(0))
        self.high = torch.maximum(self.high, torch.where(valid, cosine, -math.inf).amax(0))

    def result(self) -> list[dict]:
        """K dicts ``{"offset": k, "mean": x, "min": x, "max": x}``; NaN and a note where no cosine is defined."""
        result = []
        columns = zip(self.total.tolist(), self.count.tolist(), self.low.tolist(), self.high.tolist(), strict=True)
        for k, (s, n, lo, hi) in enumerate(columns, 1):
            defined = n > 0
            entry = {
                "offset": k,
                "mean": s / n if defined else math.nan,
                "min": lo if defined else math.nan,
                "max": hi if defined else math.nan,
            }
            if not defined:  # the same rule for every dtype: norms are float64 of the rows as stored
                entry["note"] = UNDEFINED_NOTE
            result.append(entry)
        return result


def neighbour_similarity(
    table: torch.Tensor,
    max_offset: int,
    *,
    norms: torch.Tensor | None = None,
    block_rows: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[dict]:
    """Cosine between rows p and p + k of ``table`` for k = 1..K: mean, min and max over p.

    Each block of rows gets its K neighbour dot products from one (batched)
    matrix product with the window of rows that follows it; the cosines are taken
    against norms computed once and accumulated in float64. A pair in which a
    row has norm zero has no cosine and is left out; an offset with no
    defined cosine reports NaN (null in JSON) with a ``note`` saying why. The rule
    is the same for every dtype: the norms are taken in float64 of the rows as stored.

    Args:
        table: (L, D) positional table, any float dtype, any device.
        max_offset: K, the largest offset; 1 <= K < L.
        norms: (L,) row norms, if the caller already has them.
        block_rows: rows per block; by default sized to keep temporaries small.
        progress: called with the number of rows finished after each block.

    Returns:
        K dicts ``{"offset": k, "mean": x, "min": x, "max": x}``, plus ``"note"`` where undefined.
    """
    rows, dim = table.shape
    if not 1 <= max_offset < rows:
        raise ValueError(f"max_offset {max_offset} must be in [1, {rows})")
    norms = row_norms(table) if norms is None else norms
    compute = _compute_dtype(table)
    block_rows, group = neighbour_block_rows(dim, max_offset, block_rows)
    totals = NeighbourTotals(max_offset, table.device)
    for start, stop in _row_blocks(rows, block_rows):
        window_stop = min(stop + max_offset, rows)
        if window_stop <= start + 1:  # the last row has no neighbour after it
            if progress is not None:
                progress(stop - start)
            break
        dots = _band_dots(table, start, stop, max_offset, group, compute)  # (b, K)
        totals.fold(dots, norms, 0, start, rows)
        if progress is not None:
            progress(stop - start)
    return totals.result()
