"""JSON read within bounds: a size limit before the bytes are read, a depth limit before they are parsed.

Python's parser recurses once per nesting level, so a file of 100,000 ``[``
would end in RecursionError, and a 10 GiB file in MemoryError; both are
refused here, naming the flag and file, with what the limit is.
"""

from __future__ import annotations

import json
import os
import re

from posemb_cli.errors import PosembError, brief
from posemb_cli.sources.limits import MAX_JSON_BYTES, MAX_JSON_DEPTH, format_bytes

__all__ = ["JSON_EXPANSION", "json_depth", "parse_json", "read_json_file", "refuse_large_json"]

# Python objects from JSON take about this many times the text's bytes (a small int: a 28-byte object
# and an 8-byte list slot for 2 to 3 characters of text).
JSON_EXPANSION = 16
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(data: bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``data``, brackets inside strings left out."""
    import numpy as np

    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1).astype(np.int64)
    return int(np.cumsum(steps).max())


def refuse_large_json(what: str, size: int | None) -> PosembError:
    """The refusal for JSON past MAX_JSON_BYTES; ``size`` None means a stream that went past it."""
    amount = format_bytes(size) if size is not None else f"more than {format_bytes(MAX_JSON_BYTES)}"
    parse = format_bytes((size or MAX_JSON_BYTES) * JSON_EXPANSION)
    return PosembError(f"{what}: {amount} of JSON is over the {format_bytes(MAX_JSON_BYTES)} limit (parsing it "
                       f"would need {'about' if size is not None else 'more than'} {parse})")


def parse_json(data: bytes, what: str, *, hint: str = "") -> object:
    """Parse ``data`` (UTF-8, a byte-order mark allowed) after checking its depth.

    Args:
        what: the flag and file to name in a refusal, e.g. ``--config path/config.json``.
        hint: what a readable file holds, added to the refusal of unreadable bytes.

    Raises:
        PosembError: nested deeper than MAX_JSON_DEPTH, not UTF-8, or not JSON.
    """
    depth = json_depth(data)
    if depth > MAX_JSON_DEPTH:
        raise PosembError(f"{what}: JSON nested {depth} levels deep; at most {MAX_JSON_DEPTH} levels are read")
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        detail = hint or f"not readable JSON ({brief(exc)})"
        raise PosembError(f"{what}: {detail}") from None


def read_json_file(path: str, what: str) -> object:
    """The JSON value in the file at ``path``, sized with ``os.stat`` before it is read."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_JSON_BYTES:
                raise refuse_large_json(what, size)
            data = handle.read(MAX_JSON_BYTES + 1)  # a special file reports size 0: read at most the limit
    except OSError as exc:
        raise PosembError(f"{what}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_JSON_BYTES:
        raise refuse_large_json(what, None)
    return parse_json(data, what)
