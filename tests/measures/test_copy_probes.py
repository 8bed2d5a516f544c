"""Copy probes: the distances, the layout and the scoring, against plain loops.

The layout is checked by brute force over every pair of spans (no overlap, the margin kept), over
every probe (its distance on the grid, its region, its ids from the pool), per (distance, region)
(at most 3, and as many as fit where the window has room for them all), and for its seed. The
scores are checked against plain loops over synthetic losses and hits.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from posemb_cli.measures.copy_probes import (
    MARGIN,
    PER_REGION,
    SPAN,
    START,
    THRESHOLD,
    by_distance,
    distance_grid,
    holds_to,
    kept_losses,
    place_probes,
    probe_mask,
    probe_pool,
    retrieval,
    score_probes,
    write_probes,
)
from posemb_cli.measures.loss_by_position import loss_profile

SIZES = [(64, 20), (96, 32), (320, 32), (512, 256), (4096, 2048), (16_384, 8_192), (40_000, 4_096)]


def _pool(size: int = 200) -> np.ndarray:
    return np.arange(3, 3 + size, dtype=np.int64)


def test_the_grid_of_a_window_at_twice_its_trained_length():
    assert distance_grid(16_384, 8_192) == [32, 128, 512, 1024, 2048, 4096, 6144, 7168, 8192, 10240, 12288, 14336,
                                            16_352]


@pytest.mark.parametrize(("length", "trained"), SIZES)
def test_the_grid_in_a_plain_loop(length, trained):
    top = length - 2 * SPAN
    expected = set()
    for distance in (32, 128, 512):
        expected.add(distance)
    power = 1024
    while power <= top:
        expected.add(power)
        power *= 2
    for step in range(1, 9):
        expected.add(step * trained // 4)
    expected.add(7 * trained // 8)
    expected.add(top)
    assert distance_grid(length, trained) == sorted(d for d in expected if 32 <= d <= top)


def test_no_probe_fits_a_window_under_64_tokens():
    assert distance_grid(63, 20) == [] and place_probes(63, 20, _pool()) == ()
    assert place_probes(4096, 2048, np.array([], dtype=np.int64)) == ()


@pytest.mark.parametrize(("length", "trained"), SIZES)
@pytest.mark.parametrize("seed", [0, 34])
def test_the_layout_by_brute_force(length, trained, seed):
    pool = _pool()
    probes = place_probes(length, trained, pool, seed)
    grid = distance_grid(length, trained)
    assert probes, "every window here has room for a probe"
    spans = []
    for probe in probes:
        assert probe.repeat - probe.first == probe.distance and probe.distance in grid
        assert probe.first >= START and probe.repeat + SPAN <= length
        if probe.region == "within":
            assert probe.repeat + SPAN <= trained
        else:
            assert probe.region == "beyond" and probe.repeat >= trained
        assert probe.scored == (probe.repeat + 1, probe.repeat + SPAN)
        assert len(probe.ids) == SPAN and set(probe.ids) <= set(pool.tolist())
        assert len(set(probe.ids)) == SPAN  # drawn without replacement from a pool of more than 16
        spans += [(probe.first, probe.first + SPAN), (probe.repeat, probe.repeat + SPAN)]
    for (a, b), (c, d) in itertools.combinations(spans, 2):
        assert b + MARGIN <= c or d + MARGIN <= a, ((a, b), (c, d))  # apart, the margin kept
    for (distance, region), group in itertools.groupby(probes, key=lambda probe: (probe.distance, probe.region)):
        assert len(list(group)) <= PER_REGION, (distance, region)
    assert list(probes) == sorted(probes, key=lambda probe: (probe.distance, probe.region != "within", probe.first))


def test_a_long_window_fills_every_distance_and_region_that_has_room():
    """At L = 16,384 and T = 8,192 every (distance, region) holds 3 probes, but L - 32 (its first span at 16 only)."""
    length, trained = 16_384, 8_192
    probes = place_probes(length, trained, _pool())
    found: dict[tuple[int, str], int] = {}
    for probe in probes:
        found[probe.distance, probe.region] = found.get((probe.distance, probe.region), 0) + 1
    expected = {}
    for distance in distance_grid(length, trained):
        for region in ("within", "beyond"):
            repeats = [r for r in range(START + distance, length - SPAN + 1)
                       if (r + SPAN <= trained if region == "within" else r >= trained)]
            if repeats:
                expected[distance, region] = min(PER_REGION, len(repeats))
    assert found == expected
    assert expected[length - 2 * SPAN, "beyond"] == 1 and (8_192, "within") not in expected


def test_the_layout_is_deterministic_for_a_seed():
    first = place_probes(4096, 2048, _pool(), 34)
    assert place_probes(4096, 2048, _pool(), 34) == first
    other = place_probes(4096, 2048, _pool(), 35)
    assert other != first
    assert [probe.first for probe in other] != [probe.first for probe in first]


def test_the_pool_is_the_windows_own_ids_less_the_special_ones():
    window = np.array([0, 5, 7, 5, 9, 1, 7, 300, 0], dtype=np.int64)
    pool, left_out = probe_pool(window, {0, 1, 2, 50_000})
    assert pool.tolist() == [5, 7, 9, 300] and left_out == (0, 1)
    pool, left_out = probe_pool(window)
    assert pool.tolist() == [0, 1, 5, 7, 9, 300] and left_out == ()


def test_a_small_pool_is_drawn_with_replacement():
    probes = place_probes(512, 256, np.array([4, 8, 15]))
    assert probes and all(set(probe.ids) <= {4, 8, 15} for probe in probes)


def test_probes_written_over_the_window_and_the_losses_left_out():
    length, trained = 2048, 1024
    window = np.random.default_rng(1).integers(0, 1000, length)
    probes = place_probes(length, trained, probe_pool(window)[0])
    ids = write_probes(window, probes)
    assert ids is not window and window.dtype == ids.dtype == np.int64
    held = set()
    for probe in probes:
        for start in (probe.first, probe.repeat):
            assert ids[start:start + SPAN].tolist() == list(probe.ids)
            held.update(range(start, start + SPAN))
    for position in range(length):
        if position not in held:
            assert ids[position] == window[position]
    mask = probe_mask(length, probes)
    assert [position for position in range(length) if mask[position]] == sorted(held)
    kept = kept_losses(length, probes)
    assert kept.shape == (length - 1,)
    assert [p for p in range(length - 1) if kept[p]] == [p for p in range(length - 1) if p + 1 not in held]


def test_the_loss_profile_leaves_out_the_probe_positions():
    length, trained = 2048, 1024
    probes = place_probes(length, trained, _pool())
    losses = np.random.default_rng(2).uniform(0.0, 10.0, length - 1)
    kept = kept_losses(length, probes)
    profile = loss_profile(losses, trained, keep=kept)
    text = [p for p in range(length - 1)
            if not any(start <= p + 1 < start + SPAN for probe in probes for start in (probe.first, probe.repeat))]
    for bucket in profile.buckets:
        held = [losses[p] for p in text if bucket.start <= p < bucket.stop]
        assert bucket.positions == len(held)
        assert bucket.mean_loss == pytest.approx(sum(held) / len(held), rel=1e-12)
    within = [losses[p] for p in text if p < trained]
    beyond = [losses[p] for p in text if p >= trained]
    assert profile.within == pytest.approx(sum(within) / len(within), rel=1e-12)
    assert profile.beyond == pytest.approx(sum(beyond) / len(beyond), rel=1e-12)
    assert profile.mean_loss == pytest.approx(sum(losses[p] for p in text) / len(text), rel=1e-12)
    assert sum(bucket.positions for bucket in profile.buckets) == len(text) == length - 1 - 2 * SPAN * len(probes)


def test_a_bucket_of_probe_tokens_only_has_no_mean():
    losses = np.ones(95)
    keep = np.ones(95, dtype=bool)
    keep[18:30] = False  # the buckets [18, 24) and [24, 30) of a window of 96
    profile = loss_profile(losses, 32, keep=keep)
    empty = [bucket for bucket in profile.buckets if bucket.positions == 0]
    assert [(bucket.start, bucket.stop) for bucket in empty] == [(18, 24), (24, 30)]
    assert all(math.isnan(bucket.mean_loss) for bucket in empty)
    assert profile.to_dict()["loss_by_position"][3]["mean_loss"] is None
    with pytest.raises(ValueError, match="keep must mark"):
        loss_profile(losses, 32, keep=keep[:-1])


def test_scores_by_probe_and_by_distance_in_plain_loops():
    length, trained = 4096, 2048
    probes = place_probes(length, trained, _pool())
    rng = np.random.default_rng(3)
    losses = rng.uniform(0.0, 8.0, length - 1)
    hits = rng.random(length - 1) < 0.6
    scores = score_probes(probes, losses, hits, row=2)
    for score, probe in zip(scores, probes, strict=True):
        predicted = list(range(probe.repeat + 1, probe.repeat + SPAN))  # tokens repeat+1 .. repeat+15
        assert score.row == 2 and score.probe == probe
        assert score.accuracy == pytest.approx(sum(hits[t - 1] for t in predicted) / 15, abs=1e-15)
        assert score.loss == pytest.approx(sum(losses[t - 1] for t in predicted) / 15, rel=1e-12)
    found = by_distance(scores)
    assert [one.distance for one in found] == sorted({probe.distance for probe in probes})
    for one in found:
        for region in (None, "within", "beyond"):
            held = [s for s in scores if s.probe.distance == one.distance and region in (None, s.probe.region)]
            mean = one.region(region)
            if not held:
                assert mean is None
                continue
            assert mean.probes == len(held)
            assert mean.accuracy == pytest.approx(sum(s.accuracy for s in held) / len(held), rel=1e-12)
            assert mean.loss == pytest.approx(sum(s.loss for s in held) / len(held), rel=1e-12)


def _plain_holds(accuracy_by_distance: dict[int, float]) -> int | None:
    held = None
    for distance in sorted(accuracy_by_distance):
        if accuracy_by_distance[distance] < THRESHOLD:
            return held
        held = distance
    return held


def test_holds_to_is_the_longest_distance_with_every_shorter_one_at_the_threshold():
    length, trained = 4096, 2048
    probes = place_probes(length, trained, _pool())
    distances = sorted({probe.distance for probe in probes})
    rng = np.random.default_rng(4)
    for case in range(40):
        level = {distance: float(rng.choice([0.0, 0.4, 0.5, 0.9, 1.0])) for distance in distances}
        if case == 0:
            level = dict.fromkeys(distances, 1.0)
        hits = np.zeros(length - 1, dtype=bool)
        for probe in probes:  # every scored token of a probe at distance d a hit with the share level[d], in order
            count = round(level[probe.distance] * 15)
            hits[probe.repeat:probe.repeat + count] = True
        found = by_distance(score_probes(probes, np.ones(length - 1), hits))
        exact = {one.distance: round(level[one.distance] * 15) / 15 for one in found}
        assert holds_to(found) == _plain_holds(exact)
        for region in ("within", "beyond"):
            own = {one.distance: exact[one.distance] for one in found if one.region(region) is not None}
            assert holds_to(found, region) == _plain_holds(own)
    assert holds_to(by_distance(score_probes(probes, np.ones(length - 1), np.ones(length - 1, dtype=bool)))) \
        == distances[-1]


def test_the_json_of_a_retrieval():
    length, trained = 512, 256
    window = np.arange(length) % 97
    pool, left_out = probe_pool(window, {0})
    probes = place_probes(length, trained, pool)
    losses = np.full(length - 1, 2.5)
    losses[probes[0].repeat + 3] = math.inf
    found = retrieval(probes, losses, np.zeros(length - 1, dtype=bool), trained_length=trained, pool=int(pool.size),
                      left_out=left_out, row=1)
    doc = json.loads(json.dumps(found.to_dict(), allow_nan=False))
    assert list(doc) == ["span", "seed", "distances", "pool", "probes", "by_distance", "holds_to", "threshold",
                         "forward", "note", "excluded_positions"]
    assert doc["span"] == SPAN and doc["threshold"] == THRESHOLD and doc["forward"] == "own"
    assert doc["pool"] == {"distinct": 96, "left_out": [0]} and doc["distances"] == distance_grid(length, trained)
    assert doc["excluded_positions"] == 2 * SPAN * len(probes)
    assert f"({2 * SPAN * len(probes)} predictions of probe tokens)" in doc["note"]
    assert "the loss by position is that of the ids given" in doc["note"]
    first = doc["probes"][0]
    assert list(first) == ["distance", "region", "row", "first", "repeat", "scored", "accuracy", "loss"]
    assert first["row"] == 1 and first["loss"] is None and first["accuracy"] == 0.0  # an infinite loss: null
    assert first["scored"] == [first["repeat"] + 1, first["repeat"] + SPAN]
    assert doc["holds_to"]["distance"] is None and "at least 0.5" in doc["holds_to"]["rule"]
    assert set(doc["by_distance"][0]) == {"distance", "probes", "accuracy", "loss", "within", "beyond"}
    empty = retrieval((), np.ones(40), np.zeros(40, dtype=bool), trained_length=20, pool=5).to_dict()
    assert empty["probes"] == [] and empty["by_distance"] == [] and empty["excluded_positions"] == 0
    assert empty["holds_to"]["distance"] is None and "no probe fits a window of 41 tokens" in empty["note"]
