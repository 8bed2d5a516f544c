"""RoPE's probe signal: N unit probe vectors rotated to each position, side by side, written block by block.

Notation: b rows (positions) of a block, N probes, D width, H heads of hd = 2h features, G grid rows.

Angles are formed in float64 on a fixed grid of G positions: with g = p - p mod G and j = p - g,
``angle(p) = (j * theta mod 2 pi) + (g * theta mod 2 pi)``, cast to the compute dtype (the
``float64-angles`` recipe; the ``cast`` recipe of bfloat16 and float16 multiplies float32 positions
by float32 frequencies instead). The (G, h) remainders of j * theta depend on the frequencies
alone, so they are formed once and sliced for every block. Each pair (a, b) of a probe rotates to
``(cos a - sin b, sin a + cos b)``, written over whole rows as ``cos * [a, b] + sin * [-b, a]``: each
product is rounded on its own and x - y = x + (-y) exactly, so the bits are those of the pair-by-pair
formula (a test compares them). Every row depends on its position only: any block equals the same
rows of the whole signal, bit for bit.
"""

from __future__ import annotations

import math

import torch

from posemb_cli.core.dtypes import uses_cast_recipe

_ROTATE_VALUES = 1 << 18  # values of the signal rotated at once (the product buffer holds that many)
_GRID_VALUES = 1 << 22  # G * N * D: one grid's rows of the signal, 16 MiB of float32

__all__ = ["ProbeRotation"]


class ProbeRotation:
    """Writes rows of RoPE's probe signal; keeps the (G, h) angle steps of the last frequencies it saw.

    Args:
        dim, head_dim: D and hd.
        layout: ``interleaved`` (pairs 2i, 2i + 1) or ``half`` (pairs i, i + h).
        dtype: the scheme's dtype (its recipe); the signal is in the probes' compute dtype.
    """

    def __init__(self, dim: int, head_dim: int, layout: str, dtype: torch.dtype) -> None:
        self.dim, self.head_dim, self.layout, self.dtype = dim, head_dim, layout, dtype
        self._steps: tuple[torch.Tensor, torch.Tensor] | None = None  # (frequencies, (G, h) float64)

    def pairs(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Views of the first and second member of every pair: (..., D) -> two (..., H, h)."""
        heads = x.view(*x.shape[:-1], self.dim // self.head_dim, self.head_dim)
        if self.layout == "interleaved":
            pairs = heads.view(*heads.shape[:-1], self.head_dim // 2, 2)
            return pairs[..., 0], pairs[..., 1]
        pairs = heads.view(*heads.shape[:-1], 2, self.head_dim // 2)
        return pairs[..., 0, :], pairs[..., 1, :]

    def _grid_steps(self, frequencies: torch.Tensor, grid: int) -> torch.Tensor:
        """(G, h) float64: j * theta mod 2 pi for j = 0..G-1, formed once per set of frequencies."""
        if self._steps is None or not torch.equal(self._steps[0], frequencies) or self._steps[1].shape[0] != grid:
            offsets = torch.arange(grid, dtype=torch.float64, device=frequencies.device)
            self._steps = (frequencies.clone(), torch.remainder(offsets[:, None] * frequencies, 2 * math.pi))
        return self._steps[1]

    def _per_feature(self, values: torch.Tensor) -> torch.Tensor:
        """(b, h) values per pair -> (b, hd): each pair's value on both its members, in one head."""
        if self.layout == "interleaved":  # v0 v0 v1 v1 ...: two strided copies (cheaper than an expanded one)
            out = values.new_empty(values.shape[0], self.head_dim // 2, 2)
            out[..., 0] = values
            out[..., 1] = values
            return out.view(values.shape[0], self.head_dim)
        return torch.cat((values, values), dim=1)  # v0 v1 ... v0 v1 ...

    def rows(self, probes: torch.Tensor, frequencies: torch.Tensor, start: int, stop: int) -> torch.Tensor:
        """The (N, D) ``probes`` rotated to positions start..stop-1 by ``frequencies`` (h,): (stop - start, N * D)."""
        count, compute, device = probes.shape[0], probes.dtype, probes.device
        heads = self.dim // self.head_dim
        grid = max(1, _GRID_VALUES // (count * self.dim))
        swapped = torch.empty_like(probes)  # (N, D): [-b, a] in every pair
        swapped_first, swapped_second = self.pairs(swapped)
        probe_first, probe_second = self.pairs(probes)
        swapped_first.copy_(probe_second.neg())
        swapped_second.copy_(probe_first)
        probes, swapped = probes.view(count, heads, self.head_dim), swapped.view(count, heads, self.head_dim)
        cast = uses_cast_recipe(self.dtype)
        out = torch.empty(stop - start, count * self.dim, dtype=compute, device=device)
        step = max(1, _ROTATE_VALUES // (count * self.dim))  # rows per slice: the product buffer is reused
        product = torch.empty(min(step, max(stop - start, 1)), count, heads, self.head_dim, dtype=compute,
                              device=device)
        first = start
        while first < stop:
            anchor = first - first % grid
            last = min(anchor + grid, stop)
            if cast:  # float32 positions times float32 frequencies, cos/sin held in the dtype
                where = torch.arange(first, last, dtype=torch.float64, device=device).to(torch.float32)
                angles = where[:, None] * frequencies.to(torch.float32)  # (b, h)
                cos, sin = torch.cos(angles).to(self.dtype).to(compute), torch.sin(angles).to(self.dtype).to(compute)
            else:
                base = torch.remainder(anchor * frequencies, 2 * math.pi)  # (h,) float64
                steps = self._grid_steps(frequencies, grid)[first - anchor:last - anchor]  # (b, h): angle(j)
                angles = (steps + base).to(compute)  # (b, h)
                cos, sin = torch.cos(angles), torch.sin(angles)
            cos, sin = self._per_feature(cos), self._per_feature(sin)  # (b, hd)
            for at in range(0, last - first, step):
                upto = min(at + step, last - first)
                block = out[first - start + at:first - start + upto].view(upto - at, count, heads, self.head_dim)
                torch.mul(cos[at:upto, None, None, :], probes, out=block)  # (s, N, H, hd)
                block.add_(torch.mul(sin[at:upto, None, None, :], swapped, out=product[:upto - at]))
            first = last
        return out
