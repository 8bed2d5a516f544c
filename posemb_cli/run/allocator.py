"""Keep the C heap from growing with the number of blocks a streamed measure reads.

glibc raises its mmap threshold each time a large block is freed (up to 32 MiB), so
after the first block the blocks of a streamed pass come from the heap; blocks and
their temporaries of slightly different sizes then fragment it, and the resident
size grows with the number of blocks read (measured: 2 GiB above the working set
after a million positions of 1024 features in 8 MiB blocks). A fixed threshold
keeps every allocation of 4 MiB or more in its own mapping, returned on free, so
the peak stays a few blocks whatever the context. Elsewhere than glibc this does
nothing.

Note: once set, glibc's threshold stays fixed (no longer adjusted dynamically);
after the pass it is set to 32 MiB, the ceiling the dynamic rule would reach.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import sys
from collections.abc import Iterator

_M_MMAP_THRESHOLD = -3  # mallopt's parameter number in glibc's malloc.h
_STREAMING = 64 << 20  # during a pass: every block in its own mapping
_AFTER = 8 << 20  # afterwards: workspaces below 8 MiB (LAPACK's) come from the heap again

__all__ = ["bounded_heap", "release_free_memory"]


def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def _mallopt(threshold: int) -> bool:
    try:
        libc = _libc()
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, threshold)) if libc is not None else False
    except AttributeError:  # not glibc: its own allocator decides
        return False


def release_free_memory() -> None:
    """Give the heap's free pages back to the system (glibc's ``malloc_trim``), where there is one."""
    try:
        libc = _libc()
        if libc is not None:
            libc.malloc_trim(0)
    except AttributeError:
        pass


@contextlib.contextmanager
def bounded_heap() -> Iterator[bool]:
    """Within: allocations of 4 MiB or more are mapped and unmapped on their own; after: 32 MiB.

    Yields whether the threshold could be set (False off glibc). A fixed low threshold for the
    whole process would slow other work that allocates large workspaces repeatedly (an SVD ran
    7x slower), so it is lowered for the streamed pass only.
    """
    done = _mallopt(_STREAMING)
    try:
        yield done
    finally:
        if done:
            _mallopt(_AFTER)
            release_free_memory()  # the pass's freed blocks and sample: returned before the next stage allocates
