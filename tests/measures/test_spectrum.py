"""The spectrum of a table against NumPy's SVD and FFT, and a sinusoidal table's known wavelengths."""

from __future__ import annotations

import math

import numpy as np
import posemb_cli.measures.spectrum as spectrum_module
import pytest
import torch
from posemb_cli.measures.spectrum import table_spectrum

from tests.oracles import sinusoidal_table


def numpy_reference(table: np.ndarray, top: int):
    centred = table - table.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    scores = u[:, :top] * s[:top]
    explained = s[:top] ** 2 / (s ** 2).sum()
    bins = np.abs(np.fft.rfft(scores, axis=0))[1:].argmax(axis=0) + 1
    return scores, explained, table.shape[0] / bins


def graded_table(rows: int = 300, dim: int = 24, seed: int = 1) -> np.ndarray:
    """Components with well separated variances: clear gaps for both SVD routes."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((rows, dim)))[0]
    mixing = np.linalg.qr(rng.standard_normal((dim, dim)))[0]
    return (basis * (2.0 ** -np.arange(dim) * 10.0)) @ mixing.T + 0.5


def test_exact_route_matches_numpy_svd_and_fft():
    table = graded_table()
    got = table_spectrum(torch.from_numpy(table))
    scores, explained, periods = numpy_reference(table, 8)
    assert got.method == "exact"
    np.testing.assert_allclose(got.explained_variance, explained, rtol=1e-10)
    np.testing.assert_allclose(np.abs(got.scores), np.abs(scores), atol=1e-9)
    np.testing.assert_allclose(got.periods, periods)
    assert got.frequency_bins == [round(300 / p) for p in periods]


def test_randomized_route_matches_numpy_on_separated_components(monkeypatch):
    monkeypatch.setattr(spectrum_module, "_EXACT_ELEMENTS", 0)
    monkeypatch.setattr(spectrum_module, "_BLOCK_ELEMENTS", 24 * 50)  # six blocks of rows
    table = graded_table()
    got = table_spectrum(torch.from_numpy(table))
    _, explained, periods = numpy_reference(table, 8)
    assert got.method == "randomized"
    np.testing.assert_allclose(got.explained_variance, explained, rtol=1e-6)
    np.testing.assert_allclose(got.periods, periods)


@pytest.mark.parametrize(("rows", "dim"), [(1024, 32), (512, 64), (2048, 16)])
def test_sinusoidal_periods_land_on_its_wavelengths_within_one_bin(rows, dim):
    table = sinusoidal_table(rows, dim)
    got = table_spectrum(torch.from_numpy(table).float())
    wavelengths = [2 * math.pi * 10000.0 ** (2 * k / dim) for k in range(dim // 2)]
    for period, frequency in zip(got.periods, got.frequency_bins):
        assert frequency == round(rows / period)
        # the FFT bin of the component is within one bin (the tolerance) of some pair's rows / wavelength
        assert min(abs(frequency - rows / wavelength) for wavelength in wavelengths) <= 1.0, period


def test_variance_shares_sum_to_at_most_one_and_top_is_capped():
    got = table_spectrum(torch.randn(5, 3, generator=torch.Generator().manual_seed(0)))
    assert len(got.explained_variance) == 3 and sum(got.explained_variance) == pytest.approx(1.0)
    assert got.to_dict()["components"] == 3


class CountedRows:
    """A table that counts the rows read through it (slices only: the one-read route reads nothing else)."""

    def __init__(self, table: torch.Tensor) -> None:
        self.table, self.shape, self.dtype, self.device = table, table.shape, table.dtype, table.device
        self.read = torch.zeros(table.shape[0], dtype=torch.int64)

    def __getitem__(self, rows: slice) -> torch.Tensor:
        self.read[rows] += 1
        return self.table[rows]


def _tables(rows: int, dim: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    position = np.arange(rows)[:, None]
    curves = np.concatenate([np.sin(position * (k + 1) * np.pi / rows + rng.random()) for k in range(30)], axis=1)
    smooth = (curves * 3.0 / (1 + np.arange(30)) ** 1.2) @ rng.standard_normal((30, dim)) / np.sqrt(dim)
    low_rank = (rng.standard_normal((rows, 10)) * 2.0 ** -np.arange(10)) @ rng.standard_normal((10, dim))
    return {"random": 0.02 * rng.standard_normal((rows, dim)),
            "smooth plus noise, offset": smooth + 0.02 * rng.standard_normal((rows, dim)) + 0.3,
            "low rank plus a little noise": low_rank + 1e-3 * rng.standard_normal((rows, dim)) - 5.0,
            "graded": graded_table(rows, dim)}


@pytest.mark.parametrize("name", ["random", "smooth plus noise, offset", "low rank plus a little noise", "graded"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_one_read_shares_are_within_their_bound_of_the_exact_svd(monkeypatch, name, dtype):
    """Each share is at most the exact one and at most ``shortfall_bound`` below it (NumPy's SVD, float64)."""
    monkeypatch.setattr(spectrum_module, "_EXACT_ELEMENTS", 0)
    monkeypatch.setattr(spectrum_module, "_BLOCK_ELEMENTS", 200 * 97)  # blocks of 97 rows: a short last one
    table = _tables(3000, 200)[name]
    got = table_spectrum(torch.from_numpy(table).to(dtype))
    _, explained, _ = numpy_reference(table, 8)
    found = got.to_dict()
    assert found["method"] == "randomized" and found["approximate"] and found["reads"] == 1
    slack = 1e-6 if dtype == torch.float32 else 1e-12
    assert (np.array(got.explained_variance) <= explained + slack).all()
    assert (explained <= np.array(got.explained_variance) + found["shortfall_bound"] + slack).all()
    if name.startswith("low rank"):  # the sketch holds the whole range: the bound is small and so is the error
        assert found["shortfall_bound"] < 1e-4
        np.testing.assert_allclose(got.explained_variance, explained, rtol=1e-3)


def test_one_read_reads_each_row_once(monkeypatch):
    monkeypatch.setattr(spectrum_module, "_EXACT_ELEMENTS", 0)
    monkeypatch.setattr(spectrum_module, "_BLOCK_ELEMENTS", 64 * 50)
    counted = CountedRows(torch.from_numpy(graded_table(300, 64)).float())
    table_spectrum(counted)
    assert counted.read.tolist() == [1] * 300


def test_the_exact_route_is_labelled_exact_with_no_shortfall():
    found = table_spectrum(torch.from_numpy(graded_table())).to_dict()
    assert found["method"] == "exact" and not found["approximate"] and found["shortfall_bound"] == 0.0


@pytest.mark.parametrize(("rows", "width", "rank"), [(10000, 64, 64), (9000, 16, 5), (70, 64, 64)])
def test_the_tall_svd_is_numpys_svd(rows, width, rank):
    """The sketch's SVD by blocks of rows (TSQR, written over the sketch): NumPy's singular values, and the same
    left singular vectors up to sign, on a full-rank, a rank-deficient and a short matrix."""
    from posemb_cli.measures.spectrum import _tall_svd

    generator = np.random.default_rng(rows)
    tall = generator.standard_normal((rows, rank)) @ generator.standard_normal((rank, width))
    tall *= np.logspace(0, -3, width)[None, :]
    u, s, vt = np.linalg.svd(tall, full_matrices=False)
    left, values, right = _tall_svd(torch.from_numpy(tall.copy()))
    np.testing.assert_allclose(values.numpy(), s, rtol=1e-9, atol=1e-9 * s[0])
    kept = values > values.max() * 1e-6
    got = left(kept, torch.eye(int(kept.sum()), dtype=torch.float64)).numpy()
    signs = np.sign((got * u[:, :got.shape[1]]).sum(axis=0))
    np.testing.assert_allclose(got * signs, u[:, :got.shape[1]], atol=1e-8)
    np.testing.assert_allclose(np.abs(right.numpy()[kept.numpy()]), np.abs(vt[:got.shape[1]]), atol=1e-8)
