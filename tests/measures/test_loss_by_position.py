"""Loss by position: buckets, within, beyond and ratio against plain loops over the losses."""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.measures.loss_by_position import MIN_BUCKETS, bucket_edges, loss_profile


@pytest.mark.parametrize(("length", "trained"), [(16_384, 8_192), (96, 32), (100, 30), (40, 3), (17, 15)])
def test_buckets_cover_the_window_with_edges_at_t_and_l(length, trained):
    losses = np.random.default_rng(length).uniform(0.0, 10.0, length - 1)
    profile = loss_profile(losses, trained)
    starts = [bucket.start for bucket in profile.buckets]
    stops = [bucket.stop for bucket in profile.buckets]
    assert starts[0] == 0 and stops[-1] == length and starts[1:] == stops[:-1]
    assert trained in starts and len(profile.buckets) >= min(MIN_BUCKETS, length - 1)
    for bucket in profile.buckets:  # a plain loop over each bucket's positions; position L - 1 has no loss
        held = [losses[p] for p in range(bucket.start, bucket.stop) if p < length - 1]
        assert bucket.positions == len(held)
        assert bucket.mean_loss == pytest.approx(sum(held) / len(held), rel=1e-12)
        assert bucket.stop <= trained or bucket.start >= trained  # no bucket straddles T
    within = sum(losses[p] for p in range(trained)) / trained
    beyond = sum(losses[p] for p in range(trained, length - 1)) / (length - 1 - trained)
    assert profile.within == pytest.approx(within, rel=1e-12)
    assert profile.beyond == pytest.approx(beyond, rel=1e-12)
    assert profile.ratio == pytest.approx(beyond / within, rel=1e-12)
    assert profile.mean_loss == pytest.approx(sum(losses) / (length - 1), rel=1e-12)


def test_sixteen_buckets_of_a_window_at_twice_the_trained_length():
    assert bucket_edges(16_384, 8_192) == [1024 * index for index in range(17)]
    assert bucket_edges(100, 30)[:4] == [0, 6, 12, 18] and 30 in bucket_edges(100, 30)


def test_json_keys_and_non_finite_losses():
    losses = np.full(63, 2.0)
    losses[40] = math.inf
    doc = loss_profile(losses, 20).to_dict()
    assert set(doc) == {"loss_by_position", "within", "beyond", "ratio", "mean_loss"}
    assert set(doc["loss_by_position"][0]) == {"from", "to", "mean_loss", "positions"}
    assert doc["within"] == 2.0 and doc["beyond"] is None and doc["ratio"] is None


def test_a_trained_length_outside_the_window_is_an_error():
    with pytest.raises(ValueError):
        loss_profile(np.ones(10), 10)
