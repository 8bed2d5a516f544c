"""The one-pass GGUF header against the gguf package's own GGUFReader, on files its GGUFWriter wrote."""

from __future__ import annotations

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from posemb_cli.errors import PosembError  # noqa: E402
from posemb_cli.sources.gguf.file import gguf_reader  # noqa: E402
from posemb_cli.sources.gguf.header import read_header  # noqa: E402

from tests.gguf_files import close_writer  # noqa: E402

Q = gguf.GGMLQuantizationType


def _write(path, quantised: dict) -> str:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_uint32("llama.block_count", 3)
    writer.add_float32("llama.rope.freq_base", 500000.0)
    writer.add_bool("llama.flag", True)
    writer.add_int64("llama.big", -(2**40))
    writer.add_float64("llama.precise", 0.1)
    writer.add_string("general.name", "tiny ✓")
    writer.add_array("llama.layers", [1, 0, 1])
    writer.add_token_list([f"t{i}" for i in range(300)])
    writer.add_token_scores([float(i) / 7 for i in range(300)])
    for name, (array, raw) in quantised.items():
        writer.add_tensor(name, array, raw_dtype=raw)
    return close_writer(writer, path)


def _tensors(rng) -> dict:
    table = rng.normal(size=(8, 256)).astype(np.float32)
    out = {"f32": (table, None), "f16": (table.astype(np.float16), None)}
    for kind in (Q.Q8_0, Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.BF16):
        out[kind.name.lower()] = (gguf.quants.quantize(table, kind), kind)
    for kind in (Q.Q4_K, Q.Q6_K):  # the package only decodes these: random blocks, decoded by both readers
        block, size = gguf.GGML_QUANT_SIZES[kind]
        out[kind.name.lower()] = (rng.integers(0, 256, size=(8, 256 // block * size), dtype=np.uint8), kind)
    return out


def test_metadata_and_tensors_equal_the_packages_reader(tmp_path):
    path = _write(tmp_path / "m.gguf", _tensors(np.random.default_rng(0)))
    header, reference = read_header(path), gguf.GGUFReader(path)
    expected = {name: field.contents() for name, field in reference.fields.items() if not name.startswith("GGUF.")}
    assert header.metadata == expected
    assert [t.name for t in header.tensors] == [t.name for t in reference.tensors]
    for mine, theirs in zip(header.tensors, reference.tensors, strict=True):
        assert mine.tensor_type == theirs.tensor_type and mine.shape.tolist() == theirs.shape.tolist()
        np.testing.assert_array_equal(gguf.quants.dequantize(np.asarray(mine.data), mine.tensor_type),
                                      gguf.quants.dequantize(np.asarray(theirs.data), theirs.tensor_type))


@pytest.mark.parametrize("cut", [3, 20, 200, 2500, -40])
def test_a_truncated_file_is_refused_naming_it(tmp_path, cut):
    path = _write(tmp_path / "m.gguf", _tensors(np.random.default_rng(1)))
    data = open(path, "rb").read()
    short = tmp_path / "short.gguf"
    short.write_bytes(data[:cut])
    with pytest.raises(PosembError, match=r".*short.gguf: not a readable GGUF file"):
        gguf_reader(str(short))


def test_a_string_that_is_not_utf8_reads_as_none(tmp_path):
    path = _write(tmp_path / "m.gguf", {})
    data = bytearray(open(path, "rb").read())
    at = data.index("tiny ✓".encode())
    data[at] = 0xFF
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(bytes(data))
    assert read_header(str(bad)).metadata["general.name"] is None
