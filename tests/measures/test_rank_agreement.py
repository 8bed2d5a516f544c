"""Rank agreement: Spearman's rho against the correlation of the ranks, disagreements against a scan of all pairs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from posemb_cli.measures.rank_agreement import measured_ranking, rank_agreement

NAMES = ("none", "linear", "dynamic", "yarn", "llama3")


@pytest.mark.parametrize("order", list(itertools.permutations(NAMES)))
def test_spearman_and_disagreements_for_every_order_of_five(order):
    predicted = list(NAMES)
    agreement = rank_agreement(order, predicted)
    ranks_measured = [order.index(name) for name in NAMES]
    ranks_predicted = [predicted.index(name) for name in NAMES]
    assert agreement.spearman == pytest.approx(np.corrcoef(ranks_measured, ranks_predicted)[0, 1], abs=1e-12)
    apart = {(a, b) for a in NAMES for b in NAMES
             if predicted.index(a) < predicted.index(b) and order.index(b) < order.index(a)}
    assert {(pair.predicted_first, pair.measured_first) for pair in agreement.disagreements} == apart
    assert (agreement.statement() == "the measured ranking agrees with the predicted one") == (not apart)


def test_one_candidate_has_no_spearman_and_rankings_must_match():
    assert rank_agreement(["yarn"], ["yarn"]).spearman is None
    with pytest.raises(ValueError):
        rank_agreement(["yarn", "none"], ["yarn", "linear"])


def test_values_within_the_noise_tie_and_keep_the_predicted_order():
    values = {"none": 3.0, "linear": 2.5, "dynamic": 2.40001, "yarn": 2.4}
    prefer = ["dynamic", "yarn", "linear", "none"]
    assert measured_ranking(values, tolerance=1e-4, prefer=prefer) == ("dynamic", "yarn", "linear", "none")
    assert measured_ranking(values, tolerance=1e-7, prefer=prefer) == ("yarn", "dynamic", "linear", "none")
    assert measured_ranking({**values, "none": math.nan}, tolerance=1e-4, prefer=prefer)[-1] == "none"
