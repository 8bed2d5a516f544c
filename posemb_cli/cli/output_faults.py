"""Faults on stdout: a reader that went away, or a disk that is full.

Whatever is still buffered when writing fails can never be written; if it
stayed, Python would try again at exit and print "Exception ignored in
<_io.TextIOWrapper ...>" after our one line. ``silence_stdout`` points file
descriptor 1 at the null device, so that last flush succeeds quietly.
"""

from __future__ import annotations

import errno
import os
import sys

__all__ = ["OUTPUT_ERRNOS", "silence_stdout"]

# Write failures of the output itself (a full disk, a quota, a file past its size limit, a device error).
OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE})


def silence_stdout() -> None:
    """Send stdout, and anything still buffered for it, to the null device."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, AttributeError, ValueError):  # no real descriptor (a test runner's buffer)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit, as stdout does
