"""JSON read within bounds: a size limit before the bytes are read, a depth and a memory limit before they are parsed.

Python's parser recurses once per nesting level, so a file of 100,000 ``[``
would end in RecursionError, and a 10 GiB file in MemoryError; both are
refused here, naming the file, with what the limit is. Below the size
limit, the Python objects a text parses into can still take 40 times its bytes
(50 MB of ``{},`` is 1.2 GB of empty dicts): ``parse_bytes`` estimates them from
the text before parsing, and a text whose estimate is past the memory this
process has free is refused with it. The objects stay while the command runs on,
and the first thing most commands do next is import torch: under an address-space
limit the estimate must fit beside what that import will map here
(``import_reserve``), or the import would die after the file was admitted. A parse
that still runs out of memory, or meets a number Python will not convert, is
refused the same way: exit 2 naming the file, never a traceback.
"""

from __future__ import annotations

import json
import os

from posemb_cli.errors import FileError, brief
from posemb_cli.sources.bounds.import_reserve import torch_import_reserve
from posemb_cli.sources.bounds.limits import (
    MAX_JSON_BYTES,
    MAX_JSON_DEPTH,
    format_bytes,
    process_headroom,
    require_memory,
)

__all__ = ["JSON_EXPANSION", "json_depth", "parse_bytes", "parse_json", "read_json_file", "refuse_large_json"]

# Python objects from JSON take about this many times the text's bytes (a small int: a 28-byte object
# and an 8-byte list slot for 2 to 3 characters of text).
JSON_EXPANSION = 16
_DEPTH_CHUNK = 1 << 18  # bytes scanned at a time: a few MiB of working arrays whatever the text's size
# Bytes of Python objects per token of JSON text, upper bounds measured with tracemalloc (CPython 3.11):
# a container (a list of 4 slots or an empty dict, and its slot: 96), an element after a comma (its slot and
# a number, or a string's object: 64), a key after a colon (the same and its dict entry: 184), and per byte of
# text (the bytes, the decoded text and the strings made from it: 3 for ASCII, 9 where a character may take 4).
_PER_CONTAINER, _PER_ELEMENT, _PER_KEY = 96, 64, 184
_PER_BYTE_ASCII, _PER_BYTE = 3, 9


def json_depth(data: bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``data``, brackets inside strings left out.

    One pass over the bytes a chunk at a time, no copy of the text: a quote opens or closes a string unless an odd
    run of backslashes stands before it; a bracket counts where an even number of such quotes precede it. The state
    carried from chunk to chunk is the backslash run at its end, the quotes' parity and the depth, so the memory is a
    few arrays of one chunk whatever the text's size (a 50 MB string value once copied through a regex).
    """
    import numpy as np

    view = memoryview(data)
    depth = deepest = 0
    run = parity = 0  # backslashes ending the previous chunk; 1 inside a string
    for start in range(0, len(data), _DEPTH_CHUNK):
        codes = np.frombuffer(view[start:start + _DEPTH_CHUNK], dtype=np.uint8)
        index = np.arange(codes.size, dtype=np.int64)
        slash = codes == ord("\\")
        last_other = np.maximum.accumulate(np.where(slash, -1, index))  # (n,) the last non-backslash up to i
        ending = np.where(last_other < 0, index + 1 + run, index - last_other)  # backslashes ending at i
        before = np.concatenate(([run], ending[:-1]))  # backslashes right before i
        quote = (codes == ord('"')) & (before % 2 == 0)
        inside = (parity + np.cumsum(quote) - quote) % 2 == 1  # quotes before i (i's own left out)
        opens = ((codes == ord("[")) | (codes == ord("{"))) & ~inside
        closes = ((codes == ord("]")) | (codes == ord("}"))) & ~inside
        running = np.cumsum(opens.astype(np.int64) - closes) + depth
        if running.size:
            deepest, depth = max(deepest, int(running.max())), int(running[-1])
        run, parity = int(ending[-1]), int((parity + int(quote.sum())) % 2)
    return deepest


def parse_bytes(data: bytes) -> int:
    """An upper bound on the memory parsing ``data`` takes, from its brackets, commas, colons and length."""
    containers = data.count(b"[") + data.count(b"{")
    per_byte = _PER_BYTE_ASCII if data.isascii() else _PER_BYTE
    return (_PER_CONTAINER * containers + _PER_ELEMENT * data.count(b",") + _PER_KEY * data.count(b":")
            + per_byte * len(data))


def refuse_large_json(what: str, size: int | None, *, key: str | None = None) -> FileError:
    """The refusal for JSON past MAX_JSON_BYTES; ``size`` None means a stream that went past it; ``key``: the request's
    key of an input that is no model's file."""
    amount = format_bytes(size) if size is not None else f"more than {format_bytes(MAX_JSON_BYTES)}"
    parse = format_bytes((size or MAX_JSON_BYTES) * JSON_EXPANSION)
    return FileError(what, f"{amount} of JSON is over the {format_bytes(MAX_JSON_BYTES)} limit (parsing it would "
                           f"need {'about' if size is not None else 'more than'} {parse})", key=key)


def parse_json(data: bytes, what: str, *, hint: str = "", key: str | None = None) -> object:
    """Parse ``data`` (UTF-8, a byte-order mark allowed) after checking its depth.

    Args:
        what: the file to name in a refusal.
        hint: what a readable file holds, added to the refusal of unreadable bytes.
        key: for an input that is no model's file, the request's key it was given under (``ids``).

    Raises:
        FileError: its objects would not fit in the memory free (beside torch's libraries, under an
            address-space limit, where torch is still to be imported), nested deeper than MAX_JSON_DEPTH, not
            UTF-8, or not JSON.
    """
    needed = parse_bytes(data)
    detail = f"parsing {format_bytes(len(data))} of JSON into Python objects"
    require_memory(what, needed, detail=detail, key=key)
    _require_room_beside_torch(what, needed, detail, key)
    depth = json_depth(data)
    if depth > MAX_JSON_DEPTH:
        raise FileError(what, f"JSON nested {depth} levels deep; at most {MAX_JSON_DEPTH} levels are read", key=key)
    try:
        return json.loads(data.decode("utf-8-sig"))
    except MemoryError:
        raise FileError(what, f"reading it ran out of memory ({detail}, estimated at about {format_bytes(needed)}); "
                              "give a smaller file", key=key) from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # ValueError: JSONDecodeError, an int too long
        detail = hint or f"not readable JSON ({brief(exc)})"
        raise FileError(what, detail, key=key) from None


def _require_room_beside_torch(what: str, needed: int, detail: str, key: str | None) -> None:
    """Refuse when the parsed objects and the libraries ``import torch`` will map pass this process's own limit."""
    room, reserve = process_headroom(), torch_import_reserve()
    if room is None or not reserve or needed + reserve <= room[0]:
        return
    raise FileError(what, f"reading it needs about {format_bytes(needed)} ({detail}), kept while torch's libraries "
                          f"are mapped beside it ({format_bytes(reserve)}), but {format_bytes(room[0])} is left under "
                          f"{room[1]}; give a smaller file", key=key)


def read_json_file(path: str, what: str) -> object:
    """The JSON value in the file at ``path``, sized with ``os.stat`` before it is read."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_JSON_BYTES:
                raise refuse_large_json(what, size)
            data = handle.read(MAX_JSON_BYTES + 1)  # a special file reports size 0: read at most the limit
    except OSError as exc:
        raise FileError(what, f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_JSON_BYTES:
        raise refuse_large_json(what, None)
    return parse_json(data, what)
