"""Bounds on what an input may make posemb read or allocate, checked before the bytes are read.

Every file is sized first, from its header (npy, safetensors, a checkpoint's
shapes) or from ``os.stat``, and refused (exit 2) with the estimate when it
would not fit in the memory that is free: the machine's available memory, or
less where the process runs under its own limit (``ulimit -v`` on its address
space, ``ulimit -d`` on its data), which a memory map counts against too.
Human units stop at EiB: a declared size past that reads "more than 1 EiB",
not a 20-digit figure.
"""

from __future__ import annotations

import os

from posemb_cli.errors import FileError

__all__ = ["MAX_COUNT", "MAX_COUNT_TEXT", "MAX_JSON_BYTES", "MAX_JSON_DEPTH", "cpu_available_bytes", "format_bytes",
           "process_headroom", "require_mapping", "require_memory"]

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


def _machine_available() -> int | None:
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


def _status_bytes(field: str) -> int:
    """A ``Vm...`` size of this process from /proc/self/status; 0 where the system does not say."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def process_headroom() -> tuple[int, str] | None:
    """Bytes this process may still map or allocate under its own limits, and which limit; None when unlimited."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no such limits
        return None
    room = []
    for limit, field, name in ((resource.RLIMIT_AS, "VmSize", "its address-space limit (ulimit -v)"),
                               (resource.RLIMIT_DATA, "VmData", "its data limit (ulimit -d)")):
        soft = resource.getrlimit(limit)[0]
        if soft != resource.RLIM_INFINITY:
            room.append((max(0, soft - _status_bytes(field)), name))
    return min(room) if room else None


def cpu_available_bytes() -> int | None:
    """Memory free for new allocations by this process, or None when the system does not say.

    The machine's available memory, or what the process's own limits (address space, data) leave, if less.
    """
    room = process_headroom()
    bounds = [bound for bound in (_machine_available(), room[0] if room else None) if bound is not None]
    return min(bounds) if bounds else None


def require_memory(what: str, needed: int, *, detail: str = "", about: str = "", key: str | None = None) -> None:
    """Refuse (``FileError`` about ``what``) when reading it needs more memory than is free.

    Args:
        what: the file to name.
        needed: bytes the read and its first copy take.
        detail: what the estimate is made of, e.g. ``[1048576, 16384] float32``.
        about: the part of the file read, e.g. ``tensor 'wpe.weight'``.
        key: for an input that is no model's file, the request's key it was given under (``ids``).
    """
    free = cpu_available_bytes()
    if free is not None and needed > free:
        made_of = f" ({detail})" if detail else ""
        room = process_headroom()
        left = (f"{format_bytes(free)} is left under {room[1]}" if room is not None and room[0] <= free
                else f"{format_bytes(free)} is free")
        raise FileError(what, f"{about + ': ' if about else ''}reading it needs about {format_bytes(needed)}"
                              f"{made_of} but {left}; give a smaller file", key=key)


def require_mapping(what: str, size: int) -> None:
    """Refuse, naming ``what``, when memory-mapping ``size`` bytes of it would pass this process's own limits.

    A map takes address space, not memory: only ``ulimit -v`` (and ``-d`` for a private map) bound it.
    """
    room = process_headroom()
    if room is not None and size > room[0]:
        raise FileError(what, f"mapping its {format_bytes(size)} into memory needs that much address space but "
                              f"{format_bytes(room[0])} is left under {room[1]}; give a smaller file")
