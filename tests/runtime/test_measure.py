"""``measure_scalings`` behind the seam: a stand-in runtime (any ``LanguageModel``) gives the losses.

The stand-in returns losses written here, so the figures are checked against plain loops over
them (the copy probes' tokens left out, as the document's probes place them); it also records the
order of the calls: the memory is checked before any scaling is run.
"""

from __future__ import annotations

import numpy as np
import pytest
from posemb_cli.errors import PosembError
from posemb_cli.runtime import LanguageModel, MemoryNeed, TokenWindow, WindowLosses, measure_model, measure_scalings
from posemb_cli.runtime.measure import RULE

from tests.tiny_language_model import scalings

LENGTH, TRAINED = 64, 20


class StandIn:
    """A runtime that 'measures' fixed losses per scaling: what vLLM or llama.cpp would sit in place of."""

    source, vocab_size, dtype, separator, special_ids = "stand-in", 100, "float32", None, frozenset({0})

    def __init__(self, losses: dict[str, np.ndarray]) -> None:
        self.losses, self.calls = losses, []

    def describe(self) -> dict:
        return {"name": "stand-in"}

    def encode(self, text: str) -> list[int]:
        return [ord(char) % 100 for char in text]

    def check_memory(self, length: int) -> MemoryNeed:
        self.calls.append(("memory", length))
        return MemoryNeed(length, 1, 2, 3, (("cpu", None),), "cpu")

    def token_losses(self, ids, scaling, progress=None) -> WindowLosses:
        self.calls.append(("losses", scaling.name))
        self.ids = ids
        self.seen = [*getattr(self, "seen", []), np.array(ids)]
        return WindowLosses(self.losses[scaling.name], 0.5, 1.5, np.zeros(LENGTH - 1, dtype=bool))


def _window() -> TokenWindow:
    return TokenWindow(np.arange(LENGTH, dtype=np.int64), "ids", ("ids.npy",), 1, None, LENGTH)


def _losses(seed: int, within: float, beyond: float) -> np.ndarray:
    values = np.random.default_rng(seed).uniform(-0.1, 0.1, LENGTH - 1)
    values[:TRAINED] += within
    values[TRAINED:] += beyond
    return values


def test_a_stand_in_runtime_fits_the_seam():
    assert isinstance(StandIn({}), LanguageModel)


def test_figures_ranking_and_agreement_from_the_losses_measured():
    names = [scaling.name for scaling in scalings(LENGTH, TRAINED)]
    means = {"none": (2.0, 6.0), "linear": (2.6, 2.9), "dynamic": (2.1, 2.8), "yarn": (2.05, 2.7),
             "llama3": (2.2, 2.85)}
    runtime = StandIn({name: _losses(index, *means[name]) for index, name in enumerate(names)})
    predicted = ["dynamic", "yarn", "llama3", "linear", "none"]
    run = measure_scalings(runtime, _window(), scalings(LENGTH, TRAINED), trained_length=TRAINED,
                           predicted_ranking=predicted)
    # per scaling: the ids given (the text's loss), then the probes' own forward
    assert runtime.calls == [("memory", LENGTH)] + [("losses", name) for name in names for _ in range(2)]
    assert np.array_equal(runtime.seen[0], _window().ids)  # the text's loss: a forward of the ids given
    assert not np.array_equal(runtime.seen[1], _window().ids) and np.array_equal(runtime.seen[1], run.ids)
    by_mean = sorted(names, key=lambda name: runtime.losses[name].mean())
    assert run.ranking == tuple(by_mean) == ("yarn", "dynamic", "llama3", "linear", "none")
    doc = run.to_dict()
    assert doc["rule"] == RULE and doc["length"] == LENGTH and doc["trained_length"] == TRAINED
    for name in names:
        losses, measured = runtime.losses[name], doc["measured"][name]
        probes = measured["retrieval"]["probes"]
        assert [(probe["first"], probe["repeat"]) for probe in probes] == [(16, 48)]  # the one that fits in 64
        # the loss of the ids given: every position, none left out (the probes ran in a forward of their own)
        assert measured["within"] == pytest.approx(np.mean([losses[p] for p in range(TRAINED)]), rel=1e-12)
        assert measured["beyond"] == pytest.approx(np.mean([losses[p] for p in range(TRAINED, LENGTH - 1)]),
                                                   rel=1e-12)
        assert (measured["tokens"], measured["seconds"], measured["load_seconds"]) == (LENGTH, 1.5, 0.5)
        assert measured["probe_seconds"] == 2.0
    agreement = doc["agreement"]
    assert agreement["measured_ranking"] == list(by_mean) and agreement["predicted_ranking"] == predicted
    assert agreement["spearman"] == pytest.approx(1 - 6 * 2 / (5 * 24))  # dynamic and yarn swap places
    assert agreement["disagreements"] == [{"predicted_first": "dynamic", "measured_first": "yarn"}]
    assert "predicted dynamic above yarn, measured yarn above dynamic" in agreement["statement"]


def test_no_prediction_no_agreement_and_names_must_match():
    runtime = StandIn({scaling.name: _losses(0, 2.0, 3.0) for scaling in scalings(LENGTH, TRAINED)})
    run = measure_scalings(runtime, _window(), scalings(LENGTH, TRAINED), trained_length=TRAINED)
    assert run.agreement is None and run.to_dict()["agreement"] is None
    with pytest.raises(ValueError, match="must order the scalings"):
        measure_scalings(runtime, _window(), scalings(LENGTH, TRAINED), trained_length=TRAINED,
                         predicted_ranking=["none"])


def test_one_call_takes_a_text_or_ids_not_both():
    for given in ({}, {"text": ["a.txt"], "ids": "ids.npy"}):
        with pytest.raises(PosembError, match="give one of them"):
            measure_model("model.gguf", scalings(LENGTH, TRAINED), length=LENGTH, trained_length=TRAINED, **given)


def test_importing_the_runtime_pulls_neither_torch_nor_transformers():
    """A command that takes the runtime keeps --help fast: the backend is imported when a model is opened."""
    import subprocess
    import sys

    code = "import sys, posemb_cli.runtime; print(sorted({'torch', 'transformers'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
