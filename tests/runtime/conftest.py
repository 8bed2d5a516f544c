"""The tiny Llama of ``tests/tiny_language_model``, saved once per test module: a directory, a GGUF file, a text."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
pytest.importorskip("accelerate")
pytest.importorskip("gguf")

from tests.tiny_language_model import tiny_llama_folder, tiny_llama_gguf, write_text  # noqa: E402

LENGTH = 96  # three times the trained length


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """``(folder, gguf_path, text_path, tokenizer)`` of the tiny model."""
    root = tmp_path_factory.mktemp("tiny")
    model, tokenizer = tiny_llama_folder(root / "hf")
    (root / "gguf").mkdir()
    gguf_path = tiny_llama_gguf(root / "gguf" / "tiny.gguf", model, tokenizer)
    return str(root / "hf"), gguf_path, write_text(root / "text.txt"), tokenizer
