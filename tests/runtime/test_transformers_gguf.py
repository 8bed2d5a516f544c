"""The same measurement on the tiny Llama written as a GGUF file, as llama.cpp's converter writes it.

The file (``tests/tiny_language_model.tiny_llama_gguf``) holds the model's tensors in F32 with q and
k rows permuted as llama.cpp stores them, and the tokenizer's byte-level BPE vocabulary and merges;
transformers' GGUF loader reads both. Oracles: the text's ids under the directory's own tokenizer,
and transformers' forward with ``labels`` on the safetensors model (``tests/loss_oracle``): the
GGUF path must give the losses of the model it was written from (on the window as run: the text's ids
with the copy probes written over them).
"""

from __future__ import annotations

import numpy as np
import pytest
from posemb_cli.runtime import measure_scalings, open_model, text_window

from tests.loss_oracle import oracle_losses
from tests.runtime.conftest import LENGTH
from tests.runtime.test_transformers_losses import ATOL, NAMES
from tests.tiny_language_model import TRAINED, ids_of, scalings


@pytest.fixture(scope="module")
def measured(tiny):
    _folder, gguf_path, text, _tokenizer = tiny
    model = open_model(gguf_path, device="cpu")
    window = text_window(model, [text], LENGTH)
    return window, measure_scalings(model, window, scalings(LENGTH), trained_length=TRAINED)


def test_the_gguf_tokenizer_gives_the_directorys_ids(tiny, measured):
    _folder, _gguf, text, tokenizer = tiny
    window, run = measured
    np.testing.assert_array_equal(window.ids, ids_of(tokenizer, open(text, encoding="utf-8").read())[:LENGTH])
    assert run.runtime["file"] == "gguf" and run.runtime["model"] == "llama"


@pytest.mark.parametrize("name", NAMES)
def test_every_position_equals_transformers_forward_on_the_safetensors_model(tiny, measured, name):
    folder = tiny[0]
    window, run = measured
    scaling = next(item for item in scalings(LENGTH) if item.name == name)
    np.testing.assert_allclose(run.measured(name).losses,  # on the ids the forward ran: the copy probes written
                               oracle_losses(folder, scaling.rope_parameters, run.window.ids), rtol=0, atol=ATOL)
