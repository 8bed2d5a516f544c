"""One rule for zero rows in every dtype: a pair with a zero row has no cosine; an offset without any is null."""

import math

import numpy as np
import pytest
import torch
from posemb_cli.measures.neighbours import UNDEFINED_NOTE, neighbour_similarity

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16)


def oracle(table: np.ndarray, k: int):
    """Mean, min, max of cos(row p, row p + k) over the pairs where neither row is zero, by a plain loop."""
    cosines = []
    for p in range(table.shape[0] - k):
        a, b = table[p], table[p + k]
        na, nb = math.sqrt(float(a @ a)), math.sqrt(float(b @ b))
        if na > 0 and nb > 0:
            cosines.append(float(a @ b) / (na * nb))
    return (sum(cosines) / len(cosines), min(cosines), max(cosines)) if cosines else None


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_zero_table_is_null_with_a_note(dtype):
    result = neighbour_similarity(torch.zeros(12, 8, dtype=dtype), 3)
    for row in result:
        assert math.isnan(row["mean"]) and math.isnan(row["min"]) and math.isnan(row["max"])
        assert row["note"] == UNDEFINED_NOTE


@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_rows_are_left_out_in_every_dtype(dtype):
    generator = torch.Generator().manual_seed(3)
    table = torch.randn(20, 8, generator=generator).to(dtype)
    table[[2, 3, 9]] = 0  # offsets 1 and 6 lose some pairs, none loses all
    as_stored = table.to(torch.float64).numpy()
    tolerance = 1e-12 if dtype == torch.float64 else 1e-5
    for row in neighbour_similarity(table, 6):
        expected = oracle(as_stored, row["offset"])
        assert expected is not None and "note" not in row
        assert row["mean"] == pytest.approx(expected[0], abs=tolerance)
        assert row["min"] == pytest.approx(expected[1], abs=tolerance)
        assert row["max"] == pytest.approx(expected[2], abs=tolerance)


@pytest.mark.parametrize("dtype", DTYPES)
def test_an_offset_whose_pairs_all_have_a_zero_row_is_null(dtype):
    table = torch.zeros(6, 4, dtype=dtype)
    table[0] = torch.tensor([1.0, 2.0, 0.0, -1.0], dtype=dtype)
    table[1] = torch.tensor([0.5, 0.0, 1.0, 1.0], dtype=dtype)  # only offset 1 has a pair of non-zero rows
    first, second = neighbour_similarity(table, 2)
    expected = oracle(table.to(torch.float64).numpy(), 1)
    assert first["mean"] == pytest.approx(expected[0], abs=1e-6) and "note" not in first
    assert math.isnan(second["mean"]) and second["note"] == UNDEFINED_NOTE
