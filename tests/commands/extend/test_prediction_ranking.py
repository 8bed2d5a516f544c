"""extend's ranking is a promise: it orders the candidates by their predicted change over the window, and each
prediction is the calibrated features of the frequencies the document itself prints, recomputed here by loops.

Also: the sped-up class against a direct scan of every pair, and the fine-tuning label at the target's stretch.
"""

import math
import os

import numpy as np
import posemb_cli as posemb
import pytest
from posemb_cli.measures.extension_ranking import SCALINGS
from posemb_cli.measures.loss_prediction import CALIBRATION, NEAR

PUBLISHED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "sources", "published")
CONFIGS = sorted(name for name in os.listdir(PUBLISHED) if name.endswith(".json") and "mistral" not in name)


def displacement(trained, candidate, weights, points=4000):
    """E over d log-uniform on [1, NEAR] of sum_i w_i min(1, d |dtheta_i| / pi)^2 (midpoints in log d)."""
    total = 0.0
    for k in range(points):
        d = math.exp((k + 0.5) * math.log(NEAR) / points)
        total += sum(w * min(1.0, d * abs(a - b) / math.pi) ** 2 for a, b, w in zip(trained, candidate, weights))
    return total / points


def sweep(trained, candidate, weights, t, target, points=512):
    """E over p uniform on [T, L] of sum_i w_i ((min(p theta'_i, 2 pi) - T theta_i)+ / 2 pi)^2, T theta_i < 2 pi."""
    total = 0.0
    for k in range(points):
        p = t + (target - t) * k / (points - 1)
        total += sum(w * (max(0.0, min(p * b, 2 * math.pi) - t * a) / (2 * math.pi)) ** 2
                     for a, b, w in zip(trained, candidate, weights) if t * a < 2 * math.pi)
    return total / points


def document(name: str, times: int, **flags) -> dict:
    """extend at ``times`` the longest trained length of the model's sets (as extend itself reads it)."""
    path = os.path.join(PUBLISHED, name)
    far = posemb.extend(path, to=2**24, scalings="none").to_dict()
    length = max(one["trained_length"] for one in far["sets"])
    return posemb.extend(path, to=length * times, **flags).to_dict()


@pytest.mark.parametrize("times", [2, 4])
@pytest.mark.parametrize("name", CONFIGS)
def test_the_ranking_orders_the_predicted_window_change(name, times):
    doc = document(name, times)
    ranked = sorted(doc["candidates"], key=lambda one: one["rank"])
    for first, second in zip(ranked, ranked[1:]):  # every neighbouring pair, so every pair
        a = round(first["predicted"]["loss_change"]["window"]["value"], 12)
        b = round(second["predicted"]["loss_change"]["window"]["value"], 12)
        assert a < b or (a == b and SCALINGS.index(first["scaling"]) < SCALINGS.index(second["scaling"]))
    assert [one["scaling"] for one in doc["ranking"]] == [one["scaling"] for one in ranked]
    # ranked for fine-tuning, the first is recommended (without it: tests/commands/extend/test_recommendation.py)
    assert document(name, times, fine_tune=True)["recommendation"]["scaling"] == ranked[0]["scaling"]


@pytest.mark.parametrize("name", ["llama-2-7b.json", "gemma-3-4b-it.json", "qwen2.5-7b-instruct.json"])
def test_each_prediction_is_the_calibrated_features_of_its_printed_frequencies(name):
    doc = document(name, 2)
    target = doc["to"]
    extended = [one for one in doc["sets"] if one["needs_extension"]]
    for candidate in doc["candidates"]:
        parts = []
        for one in extended:
            found = next(c for c in one["candidates"] if c["scaling"] == candidate["scaling"])
            trained = [pair["inv_freq_trained"] for pair in found["pairs"]]
            scaled = [pair["inv_freq"] for pair in found["pairs"]]
            weights = [1 / len(trained)] * len(trained)  # a config alone: every pair alike
            t = one["trained_length"]
            reach = min(target, one["attends_to"]["distance"] + 1)
            m = found["attention_factor"] / one["published"]["attention_factor"]
            parts.append((len(one["layers"]), displacement(trained, scaled, weights),
                          sweep(trained, scaled, weights, t, reach), m * m - 1, t))
        layers = sum(part[0] for part in parts)
        mean = [sum(part[0] * part[i] for part in parts) / layers for i in (1, 2, 3)]
        t = min(part[4] for part in parts)
        # the type's correction: its offset at 2x times 2 (1 - 1/s), s its factor (dynamic NTK: the stretch at L,
        # L / R by the factor it is given, R the set's reference length)
        reference = extended[0]["reference_length"]
        s = 1.0 if candidate["factor"] is None else (target / reference if candidate["scaling"] == "dynamic"
                                                       else candidate["factor"])
        k = dict(CALIBRATION.corrections).get(candidate["scaling"], 0.0) * 2 * (1 - 1 / s)
        within = CALIBRATION.displacement * mean[0] + CALIBRATION.temperature * mean[2] + k
        beyond = within + CALIBRATION.extrapolation * mean[1] + CALIBRATION.beyond
        change = candidate["predicted"]["loss_change"]
        assert change["type_correction"] == pytest.approx(k, rel=1e-9, abs=1e-12)
        assert change["within"]["value"] == pytest.approx(within, rel=1e-2, abs=2e-3)
        assert change["beyond"]["value"] == pytest.approx(beyond, rel=1e-2, abs=2e-2)
        window = (t * change["within"]["value"] + (target - t) * change["beyond"]["value"]) / target
        assert change["window"]["value"] == pytest.approx(window, rel=1e-9, abs=1e-12)
        low, high = change["within"]["interval"]
        assert low <= change["within"]["value"] <= high


def test_sped_up_pairs_against_a_scan():
    """Gemma 3 4B is published with linear x8 on its global layers: YaRN specified from the unscaled frequencies
    turns its high-frequency pairs 8 times faster than trained, a class of their own, and a cost."""
    doc = document("gemma-3-4b-it.json", 2)
    found_any = False
    for one in doc["sets"]:
        t = one["trained_length"]
        distance = one["attends_to"]["distance"]
        for candidate in one["candidates"]:
            for pair in candidate["pairs"]:
                a, b = pair["inv_freq_trained"], pair["inv_freq"]
                extrapolated = t * a < 2 * math.pi and distance * b > t * a * (1 + 1e-9)
                compressed = not extrapolated and b < a * (1 - 1e-9)
                faster = not extrapolated and not compressed and b > a * (1 + 1e-9)
                expected = ("extrapolated" if extrapolated else "compressed" if compressed else
                            "sped_up" if faster else "unchanged")
                assert pair["class"] == expected
                found_any |= faster
            counts = {name: sum(p["class"] == name for p in candidate["pairs"]) for name in candidate["counts"]}
            assert counts == candidate["counts"]
    assert found_any
    yarn = next(one for one in doc["candidates"] if one["scaling"] == "yarn")
    assert yarn["sped_up_share"] > 0.5 and yarn["speed_up_cost"] > 0
    assert yarn["score"] == pytest.approx(next(c["compression_cost"] for s in doc["sets"] for c in s["candidates"]
                                               if c["scaling"] == "yarn") + yarn["speed_up_cost"])


@pytest.mark.parametrize(("times", "label"), [(2, "no"), (4, "beyond 2x")])
def test_the_fine_tuning_label_follows_its_evidence_at_the_stretch(times, label):
    doc = document("llama-2-7b.json", times)
    for one in doc["candidates"]:
        if one["scaling"] in ("ntk", "dynamic", "yarn"):
            assert one["needs_fine_tuning"] == label
            assert ("past about 2x" in one["evidence"]) == (times > 2)
        elif one["scaling"] in ("none", "linear", "llama3"):
            assert one["needs_fine_tuning"] == "yes"


def test_displacement_oracle_is_zero_for_the_trained_frequencies():
    theta = list(10_000.0 ** (-np.arange(8) / 8))
    assert displacement(theta, theta, [1 / 8] * 8) == 0


def test_ntk_composes_with_a_published_linear_scaling():
    """Gemma 3 4B (linear x8 on its global layers): NTK raises rope_theta under the linear block transformers keeps,
    so no pair turns faster than trained; its frequencies are the closed form, computed here."""
    doc = document("gemma-3-4b-it.json", 2)
    extended = next(one for one in doc["sets"] if one["needs_extension"])
    ntk = next(one for one in extended["candidates"] if one["scaling"] == "ntk")
    parameters = ntk["set_parameters"]
    dim = 2 * extended["rotary_pairs"]
    assert parameters["rope_type"] == "linear" and parameters["factor"] == 8.0
    assert parameters["rope_theta"] == pytest.approx(extended["base"] * 2.0 ** (dim / (dim - 2)), rel=1e-12)
    expected = parameters["rope_theta"] ** (-np.arange(0, dim, 2) / dim) / 8.0
    assert [pair["inv_freq"] for pair in ntk["pairs"]] == pytest.approx(expected.tolist(), rel=1e-12)
    assert ntk["counts"]["sped_up"] == 0
    flags = next(one for one in doc["candidates"] if one["scaling"] == "ntk")["llama_cpp"]
    assert flags is None or "--rope-freq-base" in flags
