"""What a measurement refuses, in one line (PosembError: exit 2), before any model is loaded where it can tell.

A text shorter than the window (saying how many tokens it has), ids that are too few, in several
rows or outside the vocabulary, text that is not UTF-8, a missing ``measure`` extra (the module
hidden from the import system), a window whose estimate passes what the device has (a small limit
monkeypatched in; nothing loaded), a GGUF architecture transformers does not read, and flags that
name no device or dtype.
"""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest
from posemb_cli.errors import EXIT_BAD_INPUT, PosembError
from posemb_cli.request.words import worded
from posemb_cli.runtime import ids_window, measure_scalings, open_model, text_window
from posemb_cli.runtime.transformers_backend import loading, placement

from tests.gguf_files import write_gguf
from tests.runtime.conftest import LENGTH
from tests.tiny_language_model import TEXT, TRAINED, ids_of, scalings


def refusal(call, *args, **kwargs) -> str:
    with pytest.raises(PosembError) as caught:
        call(*args, **kwargs)
    assert caught.value.exit_code == EXIT_BAD_INPUT
    message = worded(caught.value)  # as the CLI and the API word it
    assert "\n" not in message and "\x00" not in message
    return message


@pytest.fixture(scope="module")
def model(tiny):
    return open_model(tiny[0], device="cpu")


def test_a_text_shorter_than_the_window_says_how_many_tokens_it_has(tmp_path, tiny, model):
    path = tmp_path / "short.txt"
    path.write_text(TEXT, encoding="utf-8")
    tokens = ids_of(tiny[3], TEXT).size
    message = refusal(text_window, model, [str(path)], tokens + 1)
    assert f"the text has {tokens:,} tokens" in message and f"needs at least {tokens + 1:,}" in message
    assert text_window(model, [str(path)], tokens).length == tokens  # exactly enough is enough


def test_documents_are_joined_by_the_tokenizers_end_of_sequence_token(tmp_path, tiny, model):
    tokenizer = tiny[3]
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(TEXT[:120], encoding="utf-8")
    second.write_text(TEXT[120:], encoding="utf-8")
    window = text_window(model, [str(first), str(second), str(tmp_path / "b.txt")], LENGTH)
    expected = np.concatenate([ids_of(tokenizer, TEXT[:120]), [tokenizer.eos_token_id], ids_of(tokenizer, TEXT[120:])])
    assert ids_of(tokenizer, TEXT[:120]).size < LENGTH <= expected.size  # the window holds the separator
    np.testing.assert_array_equal(window.ids, expected[:LENGTH])
    assert window.to_dict()["separator"] == {"token": "</s>", "id": tokenizer.eos_token_id}
    assert window.documents == 2 and window.files == (str(first), str(second))  # the third was not needed


def test_text_files_that_are_missing_or_not_utf8(tmp_path, model):
    assert "no such file" in refusal(text_window, model, [str(tmp_path / "absent.txt")], LENGTH)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\u00e9 ".encode("latin-1") * 50)
    assert "not UTF-8 text (byte 3 is 0xe9)" in refusal(text_window, model, [str(bad)], LENGTH)


def test_ids_from_npy_and_json(tmp_path, model):
    row = np.arange(LENGTH + 5, dtype=np.int64)[None] % model.vocab_size
    np.save(tmp_path / "ids.npy", row)
    np.testing.assert_array_equal(ids_window(model, str(tmp_path / "ids.npy"), LENGTH).ids, row[0, :LENGTH])
    (tmp_path / "ids.json").write_text(json.dumps(row.tolist()))
    window = ids_window(model, str(tmp_path / "ids.json"), LENGTH)
    np.testing.assert_array_equal(window.ids, row[0, :LENGTH])
    assert window.to_dict()["tokens_read"] == LENGTH + 5


def test_ids_that_are_too_few_in_rows_or_outside_the_vocabulary(tmp_path, model):
    np.save(tmp_path / "short.npy", np.zeros((1, LENGTH - 1), dtype=np.int64))
    assert f"holds {LENGTH - 1} ids" in refusal(ids_window, model, str(tmp_path / "short.npy"), LENGTH)
    np.save(tmp_path / "rows.npy", np.zeros((2, LENGTH), dtype=np.int64))
    assert "holds 2 rows" in refusal(ids_window, model, str(tmp_path / "rows.npy"), LENGTH)
    outside = np.zeros((1, LENGTH), dtype=np.int64)
    outside[0, 7] = model.vocab_size
    np.save(tmp_path / "outside.npy", outside)
    message = refusal(ids_window, model, str(tmp_path / "outside.npy"), LENGTH)
    assert f"id {model.vocab_size} at position 7, outside" in message and f"[0, {model.vocab_size})" in message


class _WideTokenizer:
    """A model whose tokenizer gives ids past its embedding table (an added token the table lacks)."""

    source, vocab_size, separator = "wide", 100, None

    def encode(self, text: str) -> list[int]:
        return [ord(char) for char in text]


def test_a_tokenizer_id_past_the_embedding_table_is_refused(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("abd" * 10, encoding="utf-8")
    message = refusal(text_window, _WideTokenizer(), [str(path)], 20)
    assert "the tokenizer gives id 100 at position 2, outside wide's vocabulary [0, 100)" in message


@pytest.mark.parametrize("hidden", ["transformers", "accelerate", "gguf"])
def test_a_missing_extra_says_which_to_install(tiny, monkeypatch, hidden):
    monkeypatch.setitem(sys.modules, hidden, None)  # `import hidden` now raises ImportError
    message = refusal(open_model, tiny[0], device="cpu", what="--text")
    assert message.startswith("--text: ") and "pip install 'posemb[measure]'" in message and hidden in message


def test_transformers_older_than_5_is_refused(tiny, monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", types.SimpleNamespace(__version__="4.46.3"))
    assert "needs transformers 5 (found 4.46.3)" in refusal(open_model, tiny[0], device="cpu")


def test_a_window_over_the_devices_memory_is_refused_before_any_load(tiny, tmp_path, monkeypatch):
    model = open_model(tiny[0], device="cpu")
    window = ids_window(model, _ids_file(tmp_path, model), LENGTH)
    monkeypatch.setattr(placement, "free_bytes", lambda device: 1 << 20)
    monkeypatch.setattr(loading, "load_model", lambda *a, **k: pytest.fail("loaded a model that does not fit"))
    message = refusal(measure_scalings, model, window, scalings(LENGTH), trained_length=TRAINED)
    assert "measuring needs about" in message and "weights" in message and "to load them or run the window" in message
    assert "cpu has 1.0 MiB free" in message


def _ids_file(tmp_path, model) -> str:
    np.save(tmp_path / "window.npy", (np.arange(LENGTH, dtype=np.int64) % model.vocab_size)[None])
    return str(tmp_path / "window.npy")


def test_a_gguf_architecture_transformers_does_not_read_is_named(tmp_path):
    path = write_gguf(tmp_path / "rwkv.gguf", "rwkv6", {"context_length": 64, "embedding_length": 16,
                                                        "block_count": 1}, tokens=10)
    assert "does not read architecture 'rwkv6'" in refusal(open_model, path, device="cpu")


def test_a_model_transformers_has_no_causal_lm_for_is_named(tmp_path):
    config = {"model_type": "t5", "architectures": ["T5ForConditionalGeneration"]}
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "model.safetensors").write_bytes(b"")
    assert "no causal language model for model_type 't5'" in refusal(open_model, str(tmp_path), device="cpu")


def test_flags_that_name_no_device_dtype_or_model(tiny, tmp_path):
    assert refusal(open_model, tiny[0], device="tpu").startswith("--device tpu: not a device")
    assert refusal(open_model, tiny[0], dtype="int8").startswith("--dtype int8: not a dtype")
    assert "no such file or directory" in refusal(open_model, str(tmp_path / "absent"), device="cpu")
    (tmp_path / "empty").mkdir()
    assert "no config.json" in refusal(open_model, str(tmp_path / "empty"), device="cpu")


def test_a_window_that_does_not_pass_the_trained_length_is_refused(tiny, tmp_path):
    model = open_model(tiny[0], device="cpu")
    window = ids_window(model, _ids_file(tmp_path, model), TRAINED + 1)
    assert "no position past the trained length" in refusal(measure_scalings, model, window, scalings(TRAINED + 1),
                                                            trained_length=TRAINED)
