"""What a scaling does to a trained model's loss, predicted from its frequencies: three graded features and a fit.

Notation: P pairs, θ_i the frequencies the model was trained with, θ'_i a candidate's, T the trained
length, L the target, w_i the weight of pair i (the heads' mean pair share; 1 / P from a config alone),
m the attention factor (cos and sin scaled by m, so the logits by m²).

- ``displacement``: how far the candidate moves each pair's angle at the near distances attention reads
  most, against the angle the model was trained to read there: Σ_i w_i E_d[min(1, d |θ_i − θ'_i| / π)²],
  with d log-uniform over 1..NEAR (each octave alike). Squared: a pair moved a little costs next to nothing
  (dynamic NTK's and YaRN's high-frequency pairs), a pair moved by a half-turn costs fully (linear's).
  Squeezed (compressed) and sped up (a candidate specified from the frequencies before a published
  scaling) count alike: either moves the angle the heads were trained to read.
- ``extrapolation``: how much of the circle a pair that never completed a turn in training (T θ_i < 2π)
  sweeps past what it saw, at positions p in [T, L): Σ_i w_i E_p[((min(p θ'_i, 2π) − T θ_i)⁺ / 2π)²].
  Graded: a pair that turns 1.28 times its trained span sweeps little; one that turns 2 times sweeps more.
- ``temperature``: m² − 1, how much sharper the attention logits are.

The predicted changes in nats, against the unscaled model's mean loss within T on the same text:
within = a · displacement + c · temperature + k; beyond = within + b · extrapolation + e, where e is what a text's
positions past T lose or gain with no damage at all (their own difficulty, more context) and k is the scaling
type's correction, what the features leave of that type on the calibration set: k = δ_type · 2 (1 − 1 / s) at the
candidate's stretch s (0 unscaled, δ_type at 2x, at most 2 δ_type), 0 for a type not measured there. The
coefficients are fitted on measured windows (``benchmarks/calibration_fit.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["CALIBRATED_MODEL", "CALIBRATED_STRETCH", "CALIBRATION", "NEAR", "RANGE_RULE", "Calibration", "Change",
           "Features", "LossChange", "Range", "calibrated_range", "distance_weights", "features", "predict",
           "type_strength"]

_DISTANCES = 512  # points of each grid
NEAR = 64  # the near distances of the displacement (the best of 16, 64, 256, 1,024 and T on the calibration set)


@dataclass(frozen=True)
class Features:
    """The graded features of one candidate at one target (see the module docstring)."""

    displacement: float
    extrapolation: float
    temperature: float

    def to_dict(self) -> dict:
        return {"displacement": self.displacement, "extrapolation": self.extrapolation,
                "temperature": self.temperature}


def distance_weights(window: int, points: int = _DISTANCES) -> tuple[np.ndarray, np.ndarray]:
    """A grid of distances over 1..window and the weight of each, log-uniform (each octave of distance weighs
    alike: attention reads near tokens far more than far ones), summing to 1."""
    edges = np.geomspace(1.0, float(window), points + 1)
    middle = np.sqrt(edges[:-1] * edges[1:])  # (G,)
    weight = np.diff(np.log(edges))
    return middle, weight / weight.sum()


def _displacement(trained: np.ndarray, candidate: np.ndarray, weights: np.ndarray, window: int) -> float:
    distance, share = distance_weights(window)
    moved = np.minimum(1.0, distance[:, None] * np.abs(trained - candidate)[None, :] / math.pi) ** 2  # (G, P)
    return float(share @ moved @ weights)


def _extrapolation(trained: np.ndarray, candidate: np.ndarray, weights: np.ndarray, trained_length: int,
                   target: int) -> float:
    if target <= trained_length:
        return 0.0
    positions = np.linspace(trained_length, target, _DISTANCES)  # (G,)
    seen = trained_length * trained  # (P,)
    swept = np.clip(np.minimum(positions[:, None] * candidate[None, :], 2 * math.pi) - seen[None, :], 0.0, None)
    swept = np.where(seen[None, :] < 2 * math.pi, swept / (2 * math.pi), 0.0) ** 2  # (G, P)
    return float(swept.mean(0) @ weights)


def features(trained: np.ndarray, candidate: np.ndarray, weights: np.ndarray, *, trained_length: int, target: int,
             attention_factor: float = 1.0, near: int = NEAR) -> Features:
    """The features of one candidate of one RoPE set.

    Args:
        trained: (P,) θ, the frequencies the model was trained with. candidate: (P,) θ', the candidate's at L.
        weights: (P,) each pair's weight, summing to 1. trained_length: T. target: L.
        attention_factor: m. near: the farthest of the near distances (``NEAR``).
    """
    trained = np.asarray(trained, dtype=np.float64)
    candidate = np.asarray(candidate, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    return Features(displacement=_displacement(trained, candidate, weights, near),
                    extrapolation=_extrapolation(trained, candidate, weights, trained_length, target),
                    temperature=attention_factor ** 2 - 1.0)


@dataclass(frozen=True)
class Calibration:
    """The fitted coefficients (nats per unit of each feature) and the intervals' half-widths.

    Fitted on the calibration set recorded in ``benchmarks/recorded_calibration_fit.json``
    (``benchmarks/calibration_fit.py``): SmolLM2-135M (T = 8,192) on prose, code and a changelog, windows of
    10,240 to 24,576 tokens measured on the texts' own ids (``benchmarks/calibration_clean``), every default
    candidate at two factors or more. ``corrections``: each scaling type's δ (nats at a stretch of 2), fitted
    once a, b and c are held. The half-widths are the 90th percentile of the fit's absolute residuals (beyond:
    with the spread of the texts' own intercepts).
    """

    displacement: float
    extrapolation: float
    temperature: float
    beyond: float
    within_half_width: float
    beyond_half_width: float
    source: str
    corrections: tuple[tuple[str, float], ...] = ()

    def correction(self, scaling: str, stretch: float) -> float:
        """k, the nats a candidate of type ``scaling`` at stretch ``stretch`` is corrected by (0 for a type the
        calibration set did not measure)."""
        return dict(self.corrections).get(scaling, 0.0) * type_strength(stretch)


def type_strength(stretch: float) -> float:
    """What a type's correction is multiplied by at a stretch s: 2 (1 − 1 / s), 0 at s = 1 (no scaling), 1 at 2,
    approaching 2 (a correction measured up to 4x is not extrapolated without bound); 0 below 1."""
    return max(0.0, 2.0 * (1.0 - 1.0 / stretch)) if stretch > 0 else 0.0


CALIBRATION = Calibration(displacement=28.46235544479138, extrapolation=196.25597404592347,
                          temperature=0.33090658027525527, beyond=-0.17540422316881013,
                          within_half_width=0.3303379048743167, beyond_half_width=0.5720968968173884,
                          source="benchmarks/recorded_calibration_fit.json",
                          corrections=(("linear", 0.016478531704211163), ("ntk", -0.07044400122413308),
                                       ("dynamic", -0.05584440717717364), ("yarn", -0.004948122362175228),
                                       ("llama3", 0.05600006352498499)))


# The calibrated range: the one model the calibration set measured (SmolLM2-135M: llama, 30 layers of width 576,
# 64 rotary features, base 100,000, T = 8,192) and the stretches it measured (L / T from 1.25 to 3).
CALIBRATED_MODEL = {"model_type": "llama", "layers": 30, "hidden_size": 576, "rotary_dim": 64, "base": 100_000.0,
                    "trained_length": 8192}
CALIBRATED_STRETCH = (1.25, 3.0)
OTHER_MODEL_WIDENING = 2.0
RANGE_RULE = ("outside the calibrated range each interval's half-width is multiplied by (1 + log2(s / 3)) for a "
              "stretch s = L / T past 3, and by 2 for a model other than the calibrated one (SmolLM2-135M); both "
              "where both hold")


@dataclass(frozen=True)
class Range:
    """Where a prediction stands against the calibrated range, and how much its intervals were widened."""

    outside: tuple[str, ...]
    widened_by: float

    @property
    def calibrated(self) -> bool:
        return not self.outside

    def to_dict(self) -> dict:
        return {"calibrated": self.calibrated, "outside": list(self.outside), "widened_by": self.widened_by,
                "rule": RANGE_RULE}


def calibrated_range(model: dict, stretch: float) -> Range:
    """The prediction's standing for ``model`` (keys of ``CALIBRATED_MODEL``; a missing one counts as different)
    at ``stretch`` = L / T, under ``RANGE_RULE``."""
    outside: list[str] = []
    widened = 1.0
    differs = [key for key, value in CALIBRATED_MODEL.items() if model.get(key) != value]
    if differs:
        outside.append("model: calibrated on SmolLM2-135M alone; this one differs in " + ", ".join(differs))
        widened *= OTHER_MODEL_WIDENING
    low, high = CALIBRATED_STRETCH
    if stretch > high:
        outside.append(f"stretch: L / T = {stretch:.3g}, past the {high:g} calibrated")
        widened *= 1.0 + math.log2(stretch / high)
    elif stretch < low:
        outside.append(f"stretch: L / T = {stretch:.3g}, below the {low:g} calibrated")
    return Range(tuple(outside), widened)


@dataclass(frozen=True)
class Change:
    """A predicted change of the mean loss (nats) and its interval [low, high]."""

    value: float
    low: float
    high: float

    def to_dict(self) -> dict:
        return {"value": self.value, "interval": [self.low, self.high]}


@dataclass(frozen=True)
class LossChange:
    """The predicted change within T, beyond T and over the whole window [0, L), against the unscaled model's
    mean loss within T on the same text."""

    within: Change
    beyond: Change
    window: Change
    range: Range | None = None
    correction: float = 0.0

    def to_dict(self) -> dict:
        out = {"within": self.within.to_dict(), "beyond": self.beyond.to_dict(), "window": self.window.to_dict(),
               "type_correction": self.correction}
        if self.range is not None:
            out["range"] = self.range.to_dict()
        return out


def predict(found: Features, *, trained_length: int, target: int, calibration: Calibration = CALIBRATION,
            standing: Range | None = None, correction: float = 0.0) -> LossChange:
    """The change ``found`` predicts at the target (the window's mean weighs within and beyond by their lengths);
    ``standing``: the prediction against the calibrated range (``calibrated_range``), whose widening the intervals
    take; ``correction``: k, the type's correction (``Calibration.correction``)."""
    share = min(1.0, trained_length / target)
    damage = calibration.displacement * found.displacement + calibration.temperature * found.temperature + correction
    within = damage
    beyond = damage + calibration.extrapolation * found.extrapolation + calibration.beyond
    window = share * within + (1 - share) * beyond
    widen = 1.0 if standing is None else standing.widened_by
    half_within, half_beyond = widen * calibration.within_half_width, widen * calibration.beyond_half_width
    half_window = share * half_within + (1 - share) * half_beyond
    return LossChange(within=Change(within, within - half_within, within + half_within),
                      beyond=Change(beyond, beyond - half_beyond, beyond + half_beyond),
                      window=Change(window, window - half_window, window + half_window), range=standing,
                      correction=correction)
