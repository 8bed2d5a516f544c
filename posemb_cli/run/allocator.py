"""Keep the C heap from growing with the number of blocks a streamed measure reads.

glibc raises its mmap threshold each time a large block is freed (up to 32 MiB), so
after the first block the blocks of a streamed pass come from the heap; blocks and
their temporaries of slightly different sizes then fragment it, and the resident
size grows with the number of blocks read (measured: 2 GiB above the working set
after a million positions of 1024 features in 8 MiB blocks). A fixed threshold
keeps every allocation of 4 MiB or more in its own mapping, returned on free, so
the peak stays a few blocks whatever the context. Elsewhere than glibc this does
nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

_M_MMAP_THRESHOLD = -3  # mallopt's parameter number in glibc's malloc.h
_THRESHOLD = 4 << 20
_done = False

__all__ = ["bound_heap"]


def bound_heap() -> bool:
    """Fix glibc's mmap threshold at 4 MiB (once per process); whether it was set."""
    global _done
    if _done or not sys.platform.startswith("linux"):
        return _done
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _done = bool(libc.mallopt(_M_MMAP_THRESHOLD, _THRESHOLD))
    except (OSError, AttributeError):  # not glibc: its own allocator decides
        _done = False
    return _done
