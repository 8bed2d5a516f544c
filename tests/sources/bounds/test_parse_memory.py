"""What reading JSON and safetensors headers may take, bounded before it is taken.

``parse_bytes`` is checked against tracemalloc's peak while Python's own parser builds the
objects (the oracle); the process's headroom against the limit a subprocess sets itself.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import tracemalloc

import posemb_cli.sources.bounds.json_limits as json_limits
import pytest
from posemb_cli.errors import PosembError
from posemb_cli.sources.bounds.json_limits import json_depth, parse_bytes, parse_json
from posemb_cli.sources.safetensors.header import read_safetensors_header

ITEMS = ["{}", "[]", "0.5", "123456", "7", '"abcdefgh"', '{"k":1}', "[[[1]]]", "true", '"\u00e9\u00e9"',
         '"\U0001F600"', "1" * 30, '{"a":{"b":[1,2]}}']


def parsed_peak(data: bytes) -> int:
    tracemalloc.start()
    try:
        json.loads(data.decode("utf-8-sig"))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("item", ITEMS)
def test_the_estimate_bounds_what_parsing_takes(item):
    data = ("[" + ",".join([item] * 50_000) + "]").encode()
    assert parsed_peak(data) + len(data) <= parse_bytes(data) <= 12 * (parsed_peak(data) + len(data))


def test_unique_keys_are_bounded_too():
    data = ("{" + ",".join(f'"key{i:08d}":{i}' for i in range(50_000)) + "}").encode()
    assert parsed_peak(data) + len(data) <= parse_bytes(data)


def test_a_parse_past_the_memory_free_is_refused_with_the_estimate(monkeypatch):
    monkeypatch.setattr("posemb_cli.sources.bounds.limits.cpu_available_bytes", lambda: 1 << 20)
    data = ("[" + ",".join(["{}"] * 100_000) + "]").encode()
    with pytest.raises(PosembError, match=r"--config c.json: reading it needs about [\d.]+ MiB \(parsing 293.0 KiB "
                                          r"of JSON into Python objects\) but 1.0 MiB is free"):
        parse_json(data, "--config c.json")


def test_depth_is_measured_across_chunks(monkeypatch):
    monkeypatch.setattr(json_limits, "_DEPTH_CHUNK", 7)
    for text in ("[" * 30 + "]" * 30, "[[],[[[]]],{\"a\":[{}]}]" * 5, "[]" * 40):
        depth = deepest = 0
        for char in text:  # the oracle: a plain count
            depth += 1 if char in "[{" else -1 if char in "]}" else 0
            deepest = max(deepest, depth)
        assert json_depth(text.encode()) == deepest


def test_headroom_follows_the_address_space_limit():
    code = ("import resource; from posemb_cli.sources.bounds.limits import process_headroom, cpu_available_bytes; "
            "resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, resource.RLIM_INFINITY)); "
            "room, name = process_headroom(); print(room, cpu_available_bytes(), name)")
    pytest.importorskip("resource")
    room, free, name = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                      timeout=60).stdout.split(" ", 2)
    assert 0 < int(room) < 3 * 2**30 and int(free) <= int(room)
    assert "ulimit -v" in name


@pytest.mark.parametrize("content,needle", [
    (b"\x05\x00", "shorter than the 8 bytes"),
    (struct.pack("<Q", 1 << 40) + b"{}", "a header of 1,099,511,627,776 bytes"),
    (struct.pack("<Q", 2) + b"[]", "its header is not a JSON object"),
    (struct.pack("<Q", 3) + b"{x}", "its header is not JSON"),
    (struct.pack("<Q", 15) + b'{"t": {"a": 1}}', "tensor 't' has no dtype, shape and data offsets"),
])
def test_damaged_headers_are_refused_naming_the_file(tmp_path, content, needle):
    path = tmp_path / "m.safetensors"
    path.write_bytes(content)
    with pytest.raises(PosembError, match=f"--checkpoint {path}: .*{needle}"):
        read_safetensors_header(str(path), f"--checkpoint {path}")


def test_header_sizes_every_tensor(tmp_path):
    header = json.dumps({"__metadata__": {"format": "pt"},
                         "a": {"dtype": "BF16", "shape": [3, 5], "data_offsets": [0, 30]},
                         "b": {"dtype": "F64", "shape": [2], "data_offsets": [30, 46]}}).encode()
    path = tmp_path / "m.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + bytes(46))
    found = read_safetensors_header(str(path), "--checkpoint m")
    assert found.shapes() == {"a": (3, 5), "b": (2,)} and found.nbytes() == {"a": 30, "b": 16}
    assert found.data_start == 8 + len(header) and found.file_size == 8 + len(header) + 46
