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

__all__ = ["EXIT_BAD_INPUT", "EXIT_DOCTOR_ERROR", "EXIT_OK", "EXIT_UNEXPECTED", "ConfigError", "FileError",
           "PosembError", "brief"]


class PosembError(Exception):
    """Bad usage or bad input: a one-line message and exit status 2."""

    exit_code = EXIT_BAD_INPUT


class FileError(PosembError):
    """A refusal about one file, saying nothing of the flag or name that gave it.

    The layer that knows how the user named the file words it (``run.models.model_source``); left as it is,
    it reads ``PATH: DETAIL``.

    Attributes:
        path: the file (or directory) the refusal is about, as the reader was given it.
        detail: what is wrong with it.
        part: the part of the file meant, written after the path (``(config.json)``), or empty.
    """

    def __init__(self, path: str, detail: str, *, part: str = "") -> None:
        super().__init__(f"{path}{' ' + part if part else ''}: {detail}")
        self.path, self.detail, self.part = path, detail, part


class ConfigError(FileError):
    """A refusal of a setting the model's config gives (a config.json field, a GGUF file's metadata as read).

    Said as ``--config`` reads it wherever the file is not named by MODEL, whichever flag named the model.
    """


def brief(detail: object, width: int = 120) -> str:
    """A library's error text for a one-line message: one line, its first sentence, at most ``width`` characters."""
    text = " ".join(str(detail).split())
    first = text.split(". ")[0]
    return first if len(first) <= width else first[:width - 3] + "..."
