"""Keep the C heap flat, and its pages mapped, while a streamed measure reads block after block.

glibc raises its mmap threshold each time a large block is freed (up to 32 MiB), and
returns the top of the heap to the system whenever more than 128 KiB is free there.
Left alone, a streamed pass then either maps and faults in every block anew (the
blocks sit just above the threshold: measured, 5 of 11 s of a million positions
went to the kernel) or fragments the heap with blocks and temporaries of slightly
different sizes, and the resident size grows with the number of blocks read.

During a pass, ``bounded_heap`` fixes the mmap threshold at 64 MiB (blocks of 16 MiB
and their temporaries come from the heap and are reused) and the trim threshold at
256 MiB (freed blocks stay mapped for the next one). What stays allocated across
blocks is allocated once (the strided sample) so that the heap does not fragment;
the peak stays a few blocks whatever the context. On leaving, the heap's free pages
are given back (``malloc_trim``) and the thresholds set to 8 MiB and 128 KiB.
Elsewhere than glibc this does nothing.

Note: once set, glibc's thresholds stay fixed (no longer adjusted dynamically); 8 MiB
keeps LAPACK's workspaces on the heap (a 4 MiB threshold for the whole process made
an SVD 7x slower).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import sys
from collections.abc import Iterator

_M_MMAP_THRESHOLD = -3  # mallopt's parameter numbers in glibc's malloc.h
_M_TRIM_THRESHOLD = -1
_STREAMING = 64 << 20  # during a pass: blocks and their temporaries come from the heap, reused
_STREAMING_TRIM = 256 << 20  # during a pass: freed blocks stay mapped for the next one
_AFTER = 8 << 20  # afterwards: workspaces below 8 MiB (LAPACK's) come from the heap
_AFTER_TRIM = 128 << 10  # afterwards: glibc's default

__all__ = ["bounded_heap", "release_free_memory"]


def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def _mallopt(threshold: int, trim: int) -> bool:
    try:
        libc = _libc()
        if libc is None:
            return False
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, threshold)) and bool(libc.mallopt(_M_TRIM_THRESHOLD, trim))
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
    """Within: the heap serves and keeps the pass's blocks (thresholds 64 MiB and 256 MiB); after: free
    pages given back, thresholds 8 MiB and 128 KiB.

    Yields whether the thresholds could be set (False off glibc).
    """
    done = _mallopt(_STREAMING, _STREAMING_TRIM)
    try:
        yield done
    finally:
        if done:
            _mallopt(_AFTER, _AFTER_TRIM)
            release_free_memory()  # the pass's freed blocks: returned before the next stage allocates
