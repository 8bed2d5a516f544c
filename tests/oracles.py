"""Independent references written from the formulas, in NumPy and plain loops."""

import math

import numpy as np


def sinusoidal_table(rows: int, dim: int, base: float = 10000.0) -> np.ndarray:
    table = np.empty((rows, dim), dtype=np.float64)
    for p in range(rows):
        for i in range(dim):
            angle = p / base ** (2 * (i // 2) / dim)
            table[p, i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)
    return table


def neighbour_cosines(table: np.ndarray, max_offset: int) -> list[dict]:
    """cos(row p, row p + k) for every p, as mean/min/max, by a plain loop over offsets."""
    table = np.asarray(table, dtype=np.float64)
    out = []
    for k in range(1, max_offset + 1):
        a, b = table[:-k], table[k:]
        cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        out.append({"offset": k, "mean": cos.mean(), "min": cos.min(), "max": cos.max()})
    return out
