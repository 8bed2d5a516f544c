"""The GGUF header reader against the gguf package's own GGUFReader, on files its GGUFWriter wrote."""

from __future__ import annotations

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from posemb_cli.errors import PosembError  # noqa: E402
from posemb_cli.sources.gguf_file import dequantized  # noqa: E402
from posemb_cli.sources.gguf_header import SkippedArray, read_header  # noqa: E402

from tests.gguf_files import q8_0, write_gguf  # noqa: E402


@pytest.fixture()
def written(tmp_path):
    rng = np.random.default_rng(0)
    tensors = {"token_embd.weight": (rng.standard_normal((10, 64)).astype(np.float32), None),
               "blk.0.attn_q.weight": (q8_0(rng.standard_normal((8, 64))), gguf.GGMLQuantizationType.Q8_0),
               "blk.0.attn_norm.weight": (rng.standard_normal(64).astype(np.float16), None)}
    meta = {"block_count": 1, "rope.freq_base": 5e5, "context_length": 128, "tags": ["a", "b"],
            "attention.head_count": [4, 4]}
    return write_gguf(tmp_path / "m.gguf", "llama", meta, tensors, tokens=5000)


def test_metadata_and_tensors_equal_the_packages_reader(written):
    ours, theirs = read_header(written, "--config"), gguf.GGUFReader(written)
    for name, field in theirs.fields.items():
        if name.startswith("GGUF."):
            continue
        value = field.contents()
        if name == "tokenizer.ggml.tokens":  # 5,000 strings: kept as their count
            assert isinstance(ours.fields[name], SkippedArray) and len(ours.fields[name]) == len(value)
        else:
            assert ours.fields[name] == pytest.approx(value) if isinstance(value, float) else ours.fields[name] == value
    assert [t.name for t in ours.tensors] == [t.name for t in theirs.tensors]
    for mine, package in zip(ours.tensors, theirs.tensors, strict=True):
        assert mine.shape == tuple(int(n) for n in reversed(package.shape.tolist()))
        assert mine.tensor_type == int(package.tensor_type)
        expected = gguf.quants.dequantize(np.asarray(package.data), package.tensor_type).reshape(mine.shape)
        np.testing.assert_array_equal(dequantized(ours, mine), expected)


@pytest.mark.parametrize("cut", [3, 20, 200, -40])
def test_a_truncated_or_damaged_file_is_refused(written, tmp_path, cut):
    data = open(written, "rb").read()
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(data[:cut] if cut > 0 else data[:cut])
    with pytest.raises(PosembError, match="not a readable GGUF file"):
        read_header(str(broken), "--config")


def test_not_gguf_is_refused(tmp_path):
    path = tmp_path / "x.gguf"
    path.write_bytes(b"NOPE" + bytes(100))
    with pytest.raises(PosembError, match="no GGUF magic"):
        read_header(str(path), "--checkpoint")
