"""Each candidate's predicted change of the model's loss, within T, beyond it and over the window [0, L).

Per RoPE set the target extends: the features of ``measures.loss_prediction`` from the set's frequencies as
trained (θ), the candidate's at the target (θ′), the heads' mean pair share on the set's layers (every pair
alike from a config alone) and the candidate's attention factor against the published one; the model's
features are the sets' means weighted by their layers. The calibrated coefficients turn them into nats
against the unscaled model's mean loss within T on the same text, with the scaling type's correction at the
candidate's stretch (the sets' mean, weighted alike).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.measures.loss_prediction import CALIBRATION, Features, LossChange, calibrated_range, features, predict

if TYPE_CHECKING:
    from posemb_cli.commands.extend.weights import SetWeights
    from posemb_cli.run.models.scaling_candidates import SetCandidateSpec
    from posemb_cli.run.models.trained_rope import TrainedSet

__all__ = ["RULE", "predicted_change", "set_features", "set_stretch"]

RULE = ("lowest predicted mean loss over the whole window [0, L) first: the change within T and beyond it "
        f"(nats against the unscaled model within T; {CALIBRATION.source}) weighed by their lengths; then the order "
        "none, linear, ntk, dynamic, yarn, llama3, longrope; figures compared to 12 decimals")


def _pair_weights(weights: SetWeights, pairs: int) -> np.ndarray:
    """(P,) the mean of the set's rows (each head's pair share, or every pair alike), summing to 1."""
    rows = [row for _, _, row in weights.rows if np.all(np.isfinite(row)) and row.sum() > 0]
    if not rows:
        return np.full(pairs, 1.0 / pairs)
    mean = np.mean(np.stack(rows), axis=0)
    return mean / mean.sum()


def set_features(trained: TrainedSet, spec: SetCandidateSpec, weights: SetWeights, target: int) -> Features:
    """The features of one candidate on one set, at the farthest distance the set's layers attend."""
    pairs = trained.inv_freq.size
    reach = min(target, trained.attends.distance + 1)
    factor = spec.attention_factor / trained.attention_factor if trained.attention_factor else spec.attention_factor
    return features(trained.inv_freq, spec.inv_freq, _pair_weights(weights, pairs),
                    trained_length=trained.trained_length, target=reach, attention_factor=factor)


def set_stretch(trained: TrainedSet, spec: SetCandidateSpec, target: int) -> float:
    """s, the stretch the candidate applies to the set: its factor; dynamic NTK's at L, f L / C - (f - 1) with C the
    set's context (transformers' rule); 1 for none."""
    if spec.factor is None:
        return 1.0
    if spec.scaling == "dynamic":
        return max(1.0, spec.factor * target / trained.context - (spec.factor - 1.0))
    return float(spec.factor)


def predicted_change(parts: list[tuple[TrainedSet, SetCandidateSpec, SetWeights]], target: int,
                     model: dict | None = None) -> LossChange:
    """The candidate's change over the sets it extends (``parts``), at the target L; ``model``: the reading's
    model_type, layers and hidden_size, against the calibrated range (None: the intervals as fitted)."""
    found = [set_features(trained, spec, weights, target) for trained, spec, weights in parts]
    layers = np.asarray([len(trained.layers) for trained, _, _ in parts], dtype=np.float64)
    share = layers / layers.sum()
    mean = Features(displacement=float(share @ [one.displacement for one in found]),
                    extrapolation=float(share @ [one.extrapolation for one in found]),
                    temperature=float(share @ [one.temperature for one in found]))
    correction = float(share @ [CALIBRATION.correction(spec.scaling, set_stretch(trained, spec, target))
                                for trained, spec, _ in parts])
    trained_length = min(trained.trained_length for trained, _, _ in parts)
    standing = None
    if model is not None:
        first = parts[0][0]
        described = {**model, "rotary_dim": first.rope.rotary_dim, "base": first.rope.base,
                     "trained_length": trained_length}
        standing = calibrated_range(described, target / trained_length)
    return predict(mean, trained_length=trained_length, target=target, standing=standing, correction=correction)
