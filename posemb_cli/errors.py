"""Error types and exit statuses; every layer imports this module and it imports nothing of ours.

Exit status: 0 done; 1 an unexpected failure; 2 bad usage or bad input (one
line on stderr naming the flag or file and what is allowed); 3 ``posemb
doctor`` found at least one error in a model's position setup.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_UNEXPECTED = 1
EXIT_BAD_INPUT = 2
EXIT_DOCTOR_ERROR = 3

__all__ = ["EXIT_BAD_INPUT", "EXIT_DOCTOR_ERROR", "EXIT_OK", "EXIT_UNEXPECTED", "PosembError", "brief"]


class PosembError(Exception):
    """Bad usage or bad input: a one-line message and exit status 2."""

    exit_code = EXIT_BAD_INPUT


def brief(detail: object, width: int = 120) -> str:
    """A library's error text for a one-line message: one line, its first sentence, at most ``width`` characters."""
    text = " ".join(str(detail).split())
    first = text.split(". ")[0]
    return first if len(first) <= width else first[:width - 3] + "..."
