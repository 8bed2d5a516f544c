"""Bounded input: JSON depth measured without parsing, sizes in human units, npy headers read before data."""

import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from posemb_cli.errors import PosembError
from posemb_cli.sources.batch.ids_input import read_ids_input
from posemb_cli.sources.bounds.json_limits import json_depth, parse_json
from posemb_cli.sources.bounds.limits import MAX_JSON_DEPTH, format_bytes


def depth_of(value) -> int:
    """Nesting of a parsed JSON value, by plain recursion: the oracle for json_depth."""
    if isinstance(value, list):
        return 1 + max((depth_of(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(item) for item in value.values()), default=0)
    return 0


JSON = st.recursive(st.one_of(st.integers(), st.text(alphabet='[]{}"\\ ab', max_size=6), st.none()),
                    lambda inner: st.one_of(st.lists(inner, max_size=3),
                                            st.dictionaries(st.text(alphabet='[{"\\k', max_size=3), inner,
                                                            max_size=3)),
                    max_leaves=12)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(JSON)
def test_json_depth_matches_the_parsed_nesting(value):
    assert json_depth(json.dumps(value).encode()) == depth_of(value)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(JSON, st.integers(min_value=1, max_value=7))
def test_json_depth_carries_its_state_across_chunks(value, chunk):
    """Chunks of 1 to 7 bytes cut escapes, backslash runs and strings anywhere: the depth is the same."""
    import posemb_cli.sources.bounds.json_limits as limits

    text = json.dumps(value).encode()
    saved = limits._DEPTH_CHUNK
    limits._DEPTH_CHUNK = chunk
    try:
        assert json_depth(text) == depth_of(value)
    finally:
        limits._DEPTH_CHUNK = saved


def test_json_depth_of_one_long_string_copies_nothing_of_its_size():
    """A 50 MB string value: the scan holds a chunk at a time (it once went through a regex, a copy and a stack)."""
    import tracemalloc

    text = b'{"model_type": "llama", "padding": "' + b"x" * 50_000_000 + b'\\"}'
    tracemalloc.start()
    try:
        assert json_depth(text) == 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20, peak  # a chunk's arrays, not the text's 50 MB


def test_parse_json_refuses_past_the_depth_limit_and_reads_up_to_it():
    assert depth_of(parse_json(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH, "--ids f")) == MAX_JSON_DEPTH
    with pytest.raises(PosembError, match=r"--ids f: JSON nested 65 levels deep; at most 64"):
        parse_json(b"[" * 65 + b"]" * 65, "--ids f")


@pytest.mark.parametrize("count,text", [(0, "0 B"), (1023, "1023 B"), (1536, "1.5 KiB"), (2**30, "1.0 GiB"),
                                        (2**60, "1.0 EiB"), (2**60 + 1, "more than 1 EiB"),
                                        (10**30, "more than 1 EiB")])
def test_format_bytes(count, text):
    assert format_bytes(count) == text


def test_npy_ids_are_read_from_the_header_then_exactly():
    buffer = io.BytesIO()
    ids = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.save(buffer, ids)
    read = read_ids_input("-", io.BytesIO(buffer.getvalue() + b"trailing bytes are never read"))
    shape, dtype, fortran = read.npy
    assert (shape, dtype, fortran) == ((3, 4), np.dtype("<i4"), False)
    np.testing.assert_array_equal(np.frombuffer(read.data, dtype=dtype).reshape(shape), ids)


@pytest.mark.parametrize("data,needle", [
    (b"", "is empty"),
    (b"\x93NUMPY\x01\x00\x10", "truncated header"),
    (b"\x93NUMPY\x07\x00", "unknown format version"),
])
def test_broken_npy_streams_are_refused(data, needle):
    with pytest.raises(PosembError, match=needle):
        read_ids_input("-", io.BytesIO(data))
