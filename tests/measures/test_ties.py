"""Picks that rounding noise cannot move: ties within noise go to the first position, block by block or whole.

The oracle of the rule is a plain loop over the values (``rule_by_loop``); the tie cases are
built so that their distances are equal in exact arithmetic (RoPE, sinusoidal, rows built by hand),
and another CPU is simulated by moving every value of a table by about one ulp.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding
from posemb_cli.core.schemes.table import TablePositionalEmbedding
from posemb_cli.core.settings import RopeScaling
from posemb_cli.measures.pairs import largest_abs, relative_fit
from posemb_cli.measures.scorecard import scorecard
from posemb_cli.measures.signal_pass import measure_signal
from posemb_cli.measures.spectrum import dominant_periods, table_spectrum
from posemb_cli.measures.ties import FirstLow, first_high, first_low

from tests.pair_oracles import min_pair_distance, neighbour_min_distance


def rule_by_loop(values: list[float], noise: list[float]) -> int | None:
    """The rule, spelled out: u = min(v + t); the first i with v_i - t_i <= u."""
    finite = [(v, t) for v, t in zip(values, noise, strict=True) if not math.isnan(v)]
    if not finite:
        return None
    bound = min(v + t for v, t in finite)
    return next(i for i, (v, t) in enumerate(zip(values, noise, strict=True)) if v - t <= bound)


def blockwise(values: torch.Tensor, noise: torch.Tensor, cuts: list[int]) -> int | None:
    search: FirstLow[int | None] = FirstLow()
    edges = [0, *cuts, values.numel()]
    for start, stop in zip(edges, edges[1:], strict=False):
        search.feed(values[start:stop], noise[start:stop], lambda index, start=start: start + index)
    return search.pick(None)


def one_ulp_moved(table: torch.Tensor, seed: int) -> torch.Tensor:
    """``table`` with every value moved one ulp up, down or not at all: what another CPU's kernels might give."""
    step = torch.randint(-1, 2, table.shape, generator=torch.Generator().manual_seed(seed))
    up, down = torch.nextafter(table, torch.full_like(table, math.inf)), torch.nextafter(table, torch.full_like(
        table, -math.inf))
    return torch.where(step > 0, up, torch.where(step < 0, down, table))


@pytest.mark.parametrize("seed", range(20))
def test_blockwise_pick_is_the_plain_rule_whatever_the_blocks(seed):
    generator = torch.Generator().manual_seed(seed)
    count = 300
    values = torch.randint(0, 40, (count,), generator=generator).double() / 8  # many exact and near ties
    values += torch.randn(count, generator=generator, dtype=torch.float64) * 1e-3
    noise = torch.rand(count, generator=generator, dtype=torch.float64) * 0.05
    values[torch.randint(0, count, (5,), generator=generator)] = math.nan
    expected = rule_by_loop(values.tolist(), noise.tolist())
    cuts = sorted(set(torch.randint(1, count, (7,), generator=generator).tolist()))
    assert first_low(values, noise) == expected
    assert blockwise(values, noise, cuts) == expected
    assert blockwise(values, noise, list(range(1, count))) == expected  # one value per block


@pytest.mark.parametrize("seed", range(10))
def test_merged_runs_give_the_same_pick_whatever_the_blocks(seed):
    """Noise growing along the values (every value a record low of v - t) with values a hair apart: runs merge.

    The pick never comes after the rule's, and ties within 1/32 of its noise past it at most.
    """
    generator = torch.Generator().manual_seed(seed)
    count = 5000
    noise = 1e-6 * (1.0 + torch.arange(count, dtype=torch.float64)) ** 1.5
    values = 1.0 + torch.rand(count, generator=generator, dtype=torch.float64) * 1e-6 * count ** 1.5 / 2
    whole = first_low(values, noise)
    for _ in range(3):
        cuts = sorted(set(torch.randint(1, count, (12,), generator=generator).tolist()))
        assert blockwise(values, noise, cuts) == whole
    bound = float((values + noise).min())
    assert whole <= rule_by_loop(values.tolist(), noise.tolist())
    assert float(values[whole] - noise[whole] * (1 + 1 / 32)) <= bound


def test_a_later_block_that_is_smaller_beyond_noise_wins():
    values = torch.full((100,), 1.0, dtype=torch.float64)
    values[70] = 1.0 - 1e-3  # far beyond the noise
    assert blockwise(values, torch.full((100,), 1e-6, dtype=torch.float64), [25, 50, 75]) == 70


def test_exact_ties_in_two_blocks_go_to_the_first():
    values = torch.full((100,), 2.0, dtype=torch.float64)
    values[30] = values[80] = 1.0
    assert blockwise(values, torch.zeros(100, dtype=torch.float64), [50]) == 30
    assert first_high(-values, 0.0) == 30


def test_runs_kept_stay_few_on_a_slow_descent():
    """A value lower than every one before at each step, all within one noise: a few runs kept, not 10^5."""
    search: FirstLow[int] = FirstLow()
    values = 1.0 - torch.arange(100_000, dtype=torch.float64) * 1e-12
    for start in range(0, 100_000, 1000):
        search.feed(values[start:start + 1000], 1e-6, lambda index, start=start: start + index)
        assert len(search._runs) <= 130
    assert search.pick(-1) == 0


def test_runs_kept_grow_with_the_log_of_the_noise_range():
    """Equal values whose noise grows 10^10-fold (ALiBi's rows grow, so do their distances' noise): every
    value is a record low of v - t and every one ties; about 128 runs per factor e of noise are kept."""
    count = 100_000
    noise = 1e-6 * (1.0 + torch.arange(count, dtype=torch.float64)) ** 2
    search: FirstLow[int] = FirstLow()
    for start in range(0, count, 4096):
        search.feed(torch.ones(min(4096, count - start), dtype=torch.float64), noise[start:start + 4096],
                    lambda index, start=start: start + index)
    assert len(search._runs) <= 130 * math.log(float(noise[-1] / noise[0]))
    assert search.pick(-1) == 0


def first_within(rows: np.ndarray, pairs: list[tuple[int, int]], window: float = 1e-5) -> tuple[int, int]:
    """Oracle: the first pair (i, then j) whose squared distance is within ``window`` of the smallest.

    For rows of norm 1 in float32, rounding moves squared distances by about 1e-7; the gaps between
    the offsets' distances here are above 1e-3.
    """
    squared = {pair: float(((rows[pair[1]] - rows[pair[0]]) ** 2).sum()) for pair in pairs}
    least = min(squared.values())
    return min(pair for pair in pairs if squared[pair] <= least + window)


def test_rope_neighbours_all_tie_and_the_first_pair_is_reported():
    rope = RotaryPositionalEmbedding(128, 32, 4, generator=torch.Generator().manual_seed(0),
                                     scaling=RopeScaling(kind="yarn", factor=4.0, original_ctx=32))
    rows = rope.signal(0, 128).double().numpy()
    steps = np.linalg.norm(rows[1:] - rows[:-1], axis=1)
    assert steps.max() - steps.min() < 1e-6 * steps.max()  # every neighbour pair is equally far apart: a tie
    measured = measure_signal(rope, max_offset=8, pair_budget=10_000, block_rows=16, block_bytes=1)
    every = [(i, j) for i in range(128) for j in range(i + 1, 128)]
    near = [(i, i + k) for i in range(128) for k in range(1, 9) if i + k < 128]
    # Every pair (p, p + k) ties with (0, k): the first pair of the closest offset is reported (44 over
    # all pairs, 6 among offsets up to 8), never one that rounding noise put lower.
    assert tuple(measured.closest["pair"]) == first_within(rows, every) == (0, 44)
    assert tuple(measured.near["pair"]) == first_within(rows, near) == (0, 6)
    note = scorecard(rope, max_offset=8, measured=measured).uniqueness.note
    assert note.startswith("closest: positions 0 and 44,")


def picks(table: torch.Tensor) -> dict:
    measured = measure_signal(TablePositionalEmbedding(table), max_offset=8, pair_budget=100_000, block_rows=16,
                              block_bytes=1)
    return {"closest": min_pair_distance(table, pair_budget=100_000)["pair"],
            "passed closest": measured.closest["pair"],
            "near": neighbour_min_distance(table, 8)["pair"], "passed near": measured.near["pair"],
            "largest": largest_abs(table)["at"], "passed largest": measured.bounds["at"],
            "worst fit": relative_fit(table, 8)["offset"]}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", ["sinusoidal", "rope"])
def test_picks_do_not_move_when_every_value_moves_one_ulp(name, seed):
    table = (SinusoidalPositionalEmbedding(200, 32).table() if name == "sinusoidal" else
             RotaryPositionalEmbedding(200, 16, 4, generator=torch.Generator().manual_seed(1)).signal(0, 200))
    rows = table.double().numpy()
    found = picks(table)
    every = [(i, j) for i in range(200) for j in range(i + 1, 200)]
    near = [(i, i + k) for i in range(200) for k in range(1, 9) if i + k < 200]
    assert tuple(found["closest"]) == first_within(rows, every, window=1e-4)
    assert tuple(found["near"]) == first_within(rows, near, window=1e-4)
    moved = one_ulp_moved(table, seed)
    assert not torch.equal(moved, table)
    assert picks(moved) == found


def test_a_genuine_minimum_still_wins_under_one_ulp_moves():
    table = torch.randn(150, 16, generator=torch.Generator().manual_seed(3))
    table[97] = table[96] + 1e-3  # the closest pair by far
    for seed in range(5):
        found = one_ulp_moved(table, seed)
        assert min_pair_distance(found, pair_budget=100_000)["pair"] == [96, 97]
        assert neighbour_min_distance(found, 4)["pair"] == [96, 97]


def test_exact_ties_in_different_blocks_of_a_table_go_to_the_first_pair():
    table = torch.zeros(90, 4, dtype=torch.float64)
    table[:, 0] = torch.arange(90, dtype=torch.float64) * 10.0  # neighbours 10 apart
    table[61, 0] = table[60, 0] + 1.0  # two pairs exactly 1 apart, in different blocks
    table[21, 0] = table[20, 0] + 1.0
    measured = measure_signal(TablePositionalEmbedding(table), max_offset=3, pair_budget=10_000,
                              block_rows=8, block_bytes=8 * 4 * 8)
    assert measured.near["pair"] == [20, 21] and measured.closest["pair"] == [20, 21]
    assert neighbour_min_distance(table, 3)["pair"] == [20, 21]


def test_largest_value_ties_go_to_the_first_row():
    table = torch.zeros(64, 4)
    table[40, 2] = 1.0
    table[9, 1] = -torch.nextafter(torch.tensor(1.0), torch.tensor(0.0))  # one ulp smaller: a tie
    table[50, 3] = 1.01  # beyond the noise: the largest
    assert largest_abs(table)["at"] == 50
    table[50, 3] = 0.0
    assert largest_abs(table)["at"] == 9 and largest_abs(table)["max_abs"] == 1.0


def test_equal_frequencies_and_equal_peaks_go_to_the_first():
    rows = 64
    p = np.arange(rows)
    two = np.cos(2 * np.pi * 5 * p / rows) + np.cos(2 * np.pi * 9 * p / rows)  # bins 5 and 9 equally strong
    _, bins = dominant_periods(two[:, None], eps=float(np.finfo(np.float32).eps))
    assert bins == [5]
    wave = np.cos(2 * np.pi * 4 * p / rows)  # peaks +1 and -1 of the same height, every 8 rows from row 0
    table = torch.from_numpy(np.stack((wave, 0.01 * np.cos(2 * np.pi * 7 * p / rows)), axis=1)).float()
    for column in (table, -table):  # whichever sign the SVD gives, the first peak (row 0) is made positive
        scores = table_spectrum(column).scores[:, 0]
        assert abs(abs(scores[0]) - abs(scores[8])) < 1e-5 * abs(scores[0])  # a tie
        assert scores[0] > 0
