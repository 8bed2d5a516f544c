"""Every per-position loss the transformers backend measures equals transformers' own forward with ``labels``.

A tiny Llama saved with ``save_pretrained`` beside its tokenizer, a text written here, a window of
three times the trained length, and each scaling (none, linear, dynamic, yarn, llama3) set as
transformers 5 takes it. Oracle: ``tests/loss_oracle`` (one forward of the whole window per
position, the label at that position only, eager attention), on the ids the forward ran (the
text's, with the copy probes written over them). The scalings give losses far apart,
so a measurement that ran another scaling than named could not pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from posemb_cli.runtime import measure_model, measure_scalings, open_model, text_window

from tests.loss_oracle import oracle_losses
from tests.runtime.conftest import LENGTH
from tests.tiny_language_model import TRAINED, ids_of, scalings

NAMES = [scaling.name for scaling in scalings(LENGTH)]
ATOL = 2e-5  # float32 through two layers: sdpa against eager attention, chunked against whole logits


@pytest.fixture(scope="module")
def measured(tiny):
    folder, _gguf, text, _tokenizer = tiny
    model = open_model(folder, device="cpu")
    window = text_window(model, [text], LENGTH)
    return window, measure_scalings(model, window, scalings(LENGTH), trained_length=TRAINED)


def test_the_window_is_the_first_ids_of_the_text_under_the_models_tokenizer(tiny, measured):
    _folder, _gguf, text, tokenizer = tiny
    window, run = measured
    expected = ids_of(tokenizer, open(text, encoding="utf-8").read())
    np.testing.assert_array_equal(window.ids, expected[:LENGTH])
    assert window.ids[0] == tokenizer.bos_token_id  # the tokenizer's own special tokens are kept
    assert run.to_dict()["text"] == {"source": "text", "files": [text], "documents": 1, "separator": None,
                                     "tokens_read": expected.size, "tokens": LENGTH}


@pytest.mark.parametrize("name", NAMES)
def test_every_position_equals_transformers_forward_with_labels(tiny, measured, name):
    folder = tiny[0]
    window, run = measured
    scaling = next(item for item in scalings(LENGTH) if item.name == name)
    mine = run.measured(name).losses
    assert mine.shape == (LENGTH - 1,)
    # the loss of the ids given (the copy probes run in a forward of their own)
    np.testing.assert_allclose(mine, oracle_losses(folder, scaling.rope_parameters, run.window.ids), rtol=0, atol=ATOL)


def test_the_scalings_give_losses_far_apart(measured):
    """The negative control of the oracle test: each scaling's losses differ from every other's."""
    _window, run = measured
    losses = {name: run.measured(name).losses for name in NAMES}
    for first in NAMES:
        for second in NAMES:
            if first < second:
                assert np.abs(losses[first] - losses[second]).max() > 1000 * ATOL, (first, second)


def test_the_figures_sum_up_the_losses_measured(measured):
    _window, run = measured
    for item in run.scalings:
        doc = item.to_dict()
        assert doc["tokens"] == LENGTH and doc["seconds"] > 0 and doc["load_seconds"] > 0
        every = range(LENGTH - 1)  # the loss of the ids given: every position
        assert doc["within"] == pytest.approx(np.mean([item.losses[p] for p in every if p < TRAINED]), rel=1e-12)
        assert doc["beyond"] == pytest.approx(np.mean([item.losses[p] for p in every if p >= TRAINED]), rel=1e-12)
        assert doc["ratio"] == pytest.approx(doc["beyond"] / doc["within"], rel=1e-12)
        edges = [bucket["from"] for bucket in doc["loss_by_position"]] + [doc["loss_by_position"][-1]["to"]]
        assert TRAINED in edges and edges[-1] == LENGTH and len(edges) - 1 >= 16


def test_one_call_from_flags_gives_the_same_losses(tiny, measured, tmp_path):
    folder, _gguf, text, _tokenizer = tiny
    window, run = measured
    np.save(tmp_path / "ids.npy", window.ids[None])
    for source in ({"text": [text]}, {"ids": str(tmp_path / "ids.npy")}):
        again = measure_model(folder, scalings(LENGTH)[:2], length=LENGTH, trained_length=TRAINED, device="cpu",
                              **source)
        for item in again.scalings:
            np.testing.assert_array_equal(item.losses, run.measured(item.name).losses)
