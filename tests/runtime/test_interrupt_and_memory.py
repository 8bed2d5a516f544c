"""Ctrl-C goes up untouched (the CLI turns it into exit 130) and leaves transformers and stderr as they were;
the weights estimate is the bytes of the model transformers loads.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import torch
from posemb_cli.runtime import ids_window, measure_scalings, open_model
from posemb_cli.runtime.transformers_backend import loading, memory

from tests.runtime.conftest import LENGTH
from tests.tiny_language_model import TRAINED, scalings


@pytest.fixture(scope="module")
def setup(tiny, tmp_path_factory):
    model = open_model(tiny[0], device="cpu")
    path = tmp_path_factory.mktemp("ids") / "ids.npy"
    np.save(path, (np.arange(LENGTH, dtype=np.int64) * 5 % model.vocab_size)[None])
    return model, ids_window(model, str(path), LENGTH)


class _InterruptAt:
    """A progress that raises KeyboardInterrupt at its first step of a window, as Ctrl-C would."""

    def stage(self, name, total=None):
        self.window = total is not None

    def advance(self, done=1):
        if self.window:
            raise KeyboardInterrupt


def test_ctrl_c_in_the_window_goes_up_as_keyboard_interrupt(setup):
    from transformers.utils import logging

    model, window = setup
    verbosity, stderr = logging.get_verbosity(), sys.stderr
    with pytest.raises(KeyboardInterrupt):
        measure_scalings(model, window, scalings(LENGTH), trained_length=TRAINED, progress=_InterruptAt())
    assert logging.get_verbosity() == verbosity and sys.stderr is stderr
    assert not torch.is_inference_mode_enabled()


def test_ctrl_c_while_loading_restores_transformers_notices_and_stderr(setup, monkeypatch):
    import transformers
    from transformers.utils import logging

    model, window = setup

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", interrupted)
    verbosity, bars, stderr = logging.get_verbosity(), logging.is_progress_bar_enabled(), sys.stderr
    with pytest.raises(KeyboardInterrupt):
        measure_scalings(model, window, scalings(LENGTH)[:1], trained_length=TRAINED)
    assert logging.get_verbosity() == verbosity and logging.is_progress_bar_enabled() == bars
    assert sys.stderr is stderr


@pytest.mark.parametrize("which", ["folder", "gguf"])
def test_the_weights_estimate_is_the_loaded_models_bytes(tiny, which):
    files = loading.locate(tiny[0] if which == "folder" else tiny[1])
    config = loading.read_config(files)
    loaded = loading.load_model(files, config, torch.float32, None, None)
    held = {id(tensor): tensor for tensor in [*loaded.parameters(), *loaded.buffers()]}.values()
    exact = sum(tensor.numel() * tensor.element_size() for tensor in held)
    built = loading.meta_model(config)
    assert memory.weight_bytes(built, 4) == exact
    largest = max(tensor.numel() for tensor in held) * 4
    file_bytes = os.path.getsize(tiny[1]) if which == "gguf" else None
    assert memory.loading_bytes(built, file_bytes) == (largest if which == "folder" else file_bytes + 2 * largest)
