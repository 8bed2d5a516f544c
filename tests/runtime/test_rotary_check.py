"""The rotary-module check: a scaling whose frequencies or attention factor the loaded model does not hold is refused.

Negative controls of the measurement: rope_parameters for linear given with none's frequencies, YaRN
given with no attention factor, a dynamic scaling given its frequencies at the trained length
instead of at L, and a forward that moves the module's frequencies (the check after the window).
Each is refused (exit 2) naming the pair or the factor, and no loss is reported.
"""

from __future__ import annotations

import numpy as np
import pytest
from posemb_cli.errors import PosembError
from posemb_cli.runtime import RotaryExpectation, Scaling, ids_window, measure_scalings, open_model
from posemb_cli.runtime.transformers_backend import losses
from posemb_cli.runtime.transformers_backend import model as backend_model

from tests.position_oracles import dynamic_inv_freq, plain_inv_freq
from tests.runtime.conftest import LENGTH
from tests.tiny_language_model import BASE, HEAD_DIM, TRAINED, scalings


@pytest.fixture(scope="module")
def setup(tiny, tmp_path_factory):
    model = open_model(tiny[0], device="cpu")
    path = tmp_path_factory.mktemp("ids") / "ids.npy"
    np.save(path, (np.arange(LENGTH, dtype=np.int64) * 7 % model.vocab_size)[None])
    return model, ids_window(model, str(path), LENGTH)


def refused(model, window, scaling: Scaling, monkeypatch, *, measured: bool = False) -> str:
    if not measured:
        monkeypatch.setattr(losses, "window_losses", lambda *a, **k: pytest.fail("measured a refused scaling"))
    with pytest.raises(PosembError) as caught:
        measure_scalings(model, window, [scaling], trained_length=TRAINED)
    return str(caught.value)


def test_rope_parameters_that_do_not_give_the_predicted_frequencies(setup, monkeypatch):
    plain = tuple(plain_inv_freq(HEAD_DIM, BASE))
    wrong = Scaling("linear", {"rope_type": "linear", "rope_theta": BASE, "factor": 2.0}, (RotaryExpectation(plain),))
    message = refused(*setup, wrong, monkeypatch)
    assert "scaling linear: transformers' rotary module holds inv_freq 0.5 at pair 0, posemb predicts 1" in message
    assert f"({HEAD_DIM // 2} of {HEAD_DIM // 2} pairs differ)" in message


def test_an_attention_factor_that_is_not_the_one_applied(setup, monkeypatch):
    yarn = next(item for item in scalings(LENGTH) if item.name == "yarn")
    wrong = Scaling("yarn", yarn.rope_parameters, (RotaryExpectation(yarn.expected[0].inv_freq, 1.0),))
    message = refused(*setup, wrong, monkeypatch)
    assert "scales cos and sin by 1.06931472" in message and "attention factor of 1" in message


def test_dynamic_frequencies_are_checked_at_the_windows_length(setup, monkeypatch):
    at_trained = tuple(dynamic_inv_freq(HEAD_DIM, BASE, 2.0, TRAINED, TRAINED))
    wrong = Scaling("dynamic", {"rope_type": "dynamic", "rope_theta": BASE, "factor": 2.0},
                    (RotaryExpectation(at_trained),))
    assert "scaling dynamic: transformers' rotary module holds inv_freq" in refused(*setup, wrong, monkeypatch)


def test_a_rope_set_the_model_has_must_be_predicted(setup, monkeypatch):
    none = next(item for item in scalings(LENGTH) if item.name == "none")
    expected = RotaryExpectation(none.expected[0].inv_freq, 1.0, "full_attention")
    other = Scaling("none", none.rope_parameters, (expected,))
    assert "no predicted frequencies for the model's one RoPE set" in refused(*setup, other, monkeypatch)


def test_frequencies_moved_by_the_forward_are_refused_after_it(setup, monkeypatch):
    measure = losses.window_losses

    def moving(model, ids, progress):
        values = measure(model, ids, progress)
        model.model.rotary_emb.inv_freq.mul_(1.001)  # what a forward that rescaled its frequencies would leave
        return values

    monkeypatch.setattr(backend_model.losses, "window_losses", moving)
    none = next(item for item in scalings(LENGTH) if item.name == "none")
    assert "holds inv_freq 1.00100005 at pair 0" in refused(*setup, none, monkeypatch, measured=True)
