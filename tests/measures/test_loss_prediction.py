"""The loss prediction's features against plain loops over fine grids, and what each scaling must give."""

import math

import numpy as np
import pytest
from posemb_cli.measures.loss_prediction import CALIBRATION, NEAR, features, predict

T, P = 512, 16


def thetas(base: float = 10_000.0) -> np.ndarray:
    return base ** (-np.arange(P) / P)


def loop_displacement(trained, candidate, weights, near, points=20_000):
    """E over d log-uniform on [1, near] of sum_i w_i min(1, d |dtheta_i| / pi)^2: a midpoint rule in log d."""
    total = 0.0
    step = math.log(near) / points
    for k in range(points):
        d = math.exp((k + 0.5) * step)
        total += sum(w * min(1.0, d * abs(a - b) / math.pi) ** 2 for a, b, w in zip(trained, candidate, weights))
    return total / points


def loop_extrapolation(trained, candidate, weights, target, points=4_000):
    """E over p uniform on [T, L] of sum_i w_i ((min(p theta'_i, 2 pi) - T theta_i)+ / 2 pi)^2 (T theta_i < 2 pi)."""
    total = 0.0
    for k in range(points):
        p = T + (target - T) * k / (points - 1)
        for a, b, w in zip(trained, candidate, weights):
            if T * a < 2 * math.pi:
                swept = max(0.0, min(p * b, 2 * math.pi) - T * a) / (2 * math.pi)
                total += w * swept ** 2
    return total / points


@pytest.mark.parametrize("candidate", ["none", "linear", "ntk", "faster"])
def test_features_against_loops(candidate):
    trained = thetas()
    rng = np.random.default_rng(0)
    weights = rng.random(P)
    weights /= weights.sum()
    scaled = {"none": trained, "linear": trained / 2, "ntk": thetas(10_000.0 * 2 ** (P / (P - 1))),
              "faster": trained * 3}[candidate]
    found = features(trained, scaled, weights, trained_length=T, target=2 * T, attention_factor=1.1)
    assert found.displacement == pytest.approx(loop_displacement(trained, scaled, weights, NEAR), rel=2e-3, abs=1e-9)
    assert found.extrapolation == pytest.approx(loop_extrapolation(trained, scaled, weights, 2 * T), rel=2e-2,
                                                abs=1e-9)
    assert found.temperature == pytest.approx(1.1 ** 2 - 1)


def test_what_each_scaling_gives():
    trained, weights = thetas(), np.full(P, 1 / P)
    none = features(trained, trained, weights, trained_length=T, target=2 * T)
    linear = features(trained, trained / 2, weights, trained_length=T, target=2 * T)
    assert none.displacement == 0 and none.extrapolation > 0  # the pairs that never turned sweep past T theta
    assert linear.extrapolation == 0 and linear.displacement > 0  # at 2T, theta / 2 sweeps exactly T theta
    faster = features(trained, trained * 2, weights, trained_length=T, target=T + 1)
    slower = features(trained, trained / 2, weights, trained_length=T, target=T + 1)
    assert faster.displacement >= slower.displacement > 0  # sped up costs as compressed does, or more
    within_t = features(trained, trained, weights, trained_length=T, target=T)
    assert within_t.extrapolation == 0


def test_prediction_weighs_within_and_beyond_by_length():
    found = features(thetas(), thetas() / 2, np.full(P, 1 / P), trained_length=T, target=4 * T)
    change = predict(found, trained_length=T, target=4 * T)
    assert change.window.value == pytest.approx(0.25 * change.within.value + 0.75 * change.beyond.value)
    assert change.within.low == pytest.approx(change.within.value - CALIBRATION.within_half_width)
    assert change.beyond.high == pytest.approx(change.beyond.value + CALIBRATION.beyond_half_width)
    assert change.within.value == pytest.approx(CALIBRATION.displacement * found.displacement)


def test_the_shipped_coefficients_are_the_recorded_fit():
    """The package's coefficients are those the calibration fit recorded over every measured window."""
    import json
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", CALIBRATION.source)
    with open(path, encoding="utf-8") as handle:
        fit = json.load(handle)["all"]
    assert [CALIBRATION.displacement, CALIBRATION.extrapolation, CALIBRATION.temperature, CALIBRATION.beyond] == \
        pytest.approx([fit["coefficients"][key] for key in "abce"], rel=1e-12)
    assert CALIBRATION.within_half_width == pytest.approx(fit["interval"]["within"], rel=1e-12)
    assert CALIBRATION.beyond_half_width == pytest.approx(fit["interval"]["beyond"], rel=1e-12)
    assert dict(CALIBRATION.corrections) == pytest.approx(fit["coefficients"]["corrections"], rel=1e-12)
    assert "llama3" in dict(CALIBRATION.corrections)  # the type issue 38 found over-predicted is corrected


@pytest.mark.parametrize("stretch", [0.5, 1.0, 1.25, 2.0, 3.0, 4.0, 64.0, 1e6])
def test_a_type_correction_vanishes_unscaled_and_stays_bounded(stretch):
    for scaling, offset in CALIBRATION.corrections:
        expected = offset * max(0.0, 2 * (1 - 1 / stretch))
        assert CALIBRATION.correction(scaling, stretch) == pytest.approx(expected, rel=1e-12, abs=1e-15)
        assert abs(CALIBRATION.correction(scaling, stretch)) <= 2 * abs(offset)
    assert CALIBRATION.correction("none", stretch) == 0.0
    assert CALIBRATION.correction("longrope", stretch) == 0.0  # not measured: not corrected


def test_the_correction_shifts_within_and_beyond_alike():
    found = features(thetas(), thetas() / 2, np.full(P, 1 / P), trained_length=T, target=4 * T)
    plain = predict(found, trained_length=T, target=4 * T)
    shifted = predict(found, trained_length=T, target=4 * T, correction=0.25)
    assert shifted.within.value - plain.within.value == pytest.approx(0.25)
    assert shifted.beyond.value - plain.beyond.value == pytest.approx(0.25)
    assert shifted.to_dict()["type_correction"] == 0.25
