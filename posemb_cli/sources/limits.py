"""Bounds on what an input may make posemb read or allocate, checked before the bytes are read.

Every file is sized first, from its header (npy, safetensors, a checkpoint's
shapes) or from ``os.stat``, and refused (exit 2) with the estimate when it
would not fit in the memory that is free. Human units stop at EiB: a
declared size past that reads "more than 1 EiB", not a 20-digit figure.
"""

from __future__ import annotations

import os

from posemb_cli.errors import PosembError

__all__ = ["MAX_COUNT", "MAX_COUNT_TEXT", "MAX_JSON_BYTES", "MAX_JSON_DEPTH", "cpu_available_bytes", "format_bytes",
           "require_memory"]

# Every count (rows, features, batch, tokens, heads, rounds), from a flag or a file, is at most this before
# torch or NumPy sees it: past it no real model lies, and a product of two would overflow an int64.
MAX_COUNT = 2**40
MAX_COUNT_TEXT = "2**40"
MAX_JSON_BYTES = 64 * 2**20  # an ids or config file in JSON: 64 MiB is millions of ids; larger batches use .npy
MAX_JSON_DEPTH = 64  # ids files nest 2 levels, configs a handful; deeper is no real file
_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def format_bytes(count: float) -> str:
    """``count`` bytes in binary units: '512 B', '1.5 GiB', and 'more than 1 EiB' past the last unit."""
    if count > 1024 ** (len(_UNITS) - 1):
        return "more than 1 EiB"
    for unit in _UNITS:
        if abs(count) < 1024 or unit == _UNITS[-1]:
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


def cpu_available_bytes() -> int | None:
    """Memory free for new allocations on this machine, or None when the system does not say."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def require_memory(what: str, needed: int, *, detail: str = "") -> None:
    """Refuse, naming ``what`` (a flag and file), when reading it needs more memory than is free.

    Args:
        what: the origin to name, e.g. ``--checkpoint big.safetensors: tensor 'wpe.weight'``.
        needed: bytes the read and its first copy take.
        detail: what the estimate is made of, e.g. ``[1048576, 16384] float32``.
    """
    free = cpu_available_bytes()
    if free is not None and needed > free:
        made_of = f" ({detail})" if detail else ""
        raise PosembError(f"{what}: reading it needs about {format_bytes(needed)}{made_of} but "
                          f"{format_bytes(free)} is free; give a smaller file")
