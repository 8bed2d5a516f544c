"""Real GGUF models shipped in Python packages (SmolLM2-135M, Gemma 3 270M), when present on this machine.

Skipped when the files are absent (``POSEMB_REAL_MODELS`` names their folder; CI does
not fetch them). The expected figures are the files' own metadata and tensor shapes,
read here with the gguf package, and llama.cpp's gemma3 rule written out as a loop.
"""

from __future__ import annotations

import functools
import os

import pytest

gguf = pytest.importorskip("gguf")

from posemb_cli.sources.naming.read import read_model  # noqa: E402

FOLDER = os.environ.get("POSEMB_REAL_MODELS", os.path.expanduser("~/.cache/posemb-real-models"))
SMOL = os.path.join(FOLDER, "SmolLM2-135M-Instruct.Q4_1.gguf")
GEMMA = os.path.join(FOLDER, "gemma-3-270m-q4_k_m.gguf")


def _file(path: str) -> str:
    if not os.path.isfile(path):
        pytest.skip(f"{os.path.basename(path)} is not on this machine")
    return path


@functools.cache  # the package's reader takes tens of seconds on a 262,144-token vocabulary: once per file
def _header(path: str) -> tuple[dict, dict]:
    reader = gguf.GGUFReader(path)
    meta = {name: field.contents() for name, field in reader.fields.items() if not name.startswith("GGUF.")
            and not name.startswith("tokenizer.")}
    shapes = {t.name: tuple(int(n) for n in reversed(t.shape.tolist())) for t in reader.tensors}
    return meta, shapes


def test_gemma3_270m_reads_two_rope_sets_as_llama_cpp_runs_it():
    path = _file(GEMMA)
    meta, shapes = _header(path)
    reading = read_model(path)
    count = meta["gemma3.block_count"]
    sliding = [il % 6 < 5 for il in range(count)]  # llama.cpp: set_swa_pattern(6)
    assert [r.rope_set for r in reading.layers] == ["sliding_attention" if s else "full_attention" for s in sliding]
    assert [r.window for r in reading.layers] == [meta["gemma3.attention.sliding_window"] if s else None
                                                  for s in sliding]
    bases = {one.name: one.base for one in reading.rope_sets}
    assert bases == {"sliding_attention": 10_000.0, "full_attention": meta["gemma3.rope.freq_base"]}
    rows, width = shapes["token_embd.weight"]
    assert reading.token_parameters == rows * width == 167_772_160
    assert reading.hidden_size == meta["gemma3.embedding_length"] == width
    groups = [(group.label, group.record.rope_set) for group in reading.groups()]
    assert groups == [("layers 0-4, 6-10, 12-16", "sliding_attention"), ("layers 5, 11, 17", "full_attention")]


def test_smollm2_135m_token_table_is_the_models():
    path = _file(SMOL)
    meta, shapes = _header(path)
    reading = read_model(path)
    assert reading.token_parameters == shapes["token_embd.weight"][0] * shapes["token_embd.weight"][1] == 28_311_552
    assert (reading.heads, reading.kv_heads) == (meta["llama.attention.head_count"],
                                                 meta["llama.attention.head_count_kv"])
    assert reading.qk_interleaved_by_converter and {r.position for r in reading.layers} == {"rope"}
    assert [one.base for one in reading.rope_sets] == [meta["llama.rope.freq_base"]]
