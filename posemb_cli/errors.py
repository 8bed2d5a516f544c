"""Error types and exit statuses; every layer imports this module and it imports nothing of ours.

Exit status: 0 done; 1 an unexpected failure; 2 bad usage or bad input (one
line on stderr naming the flag or file and what is allowed); 3 ``posemb
doctor`` found at least one error in a model's position setup.
"""

from __future__ import annotations

import re
from collections.abc import Callable

EXIT_OK = 0
EXIT_UNEXPECTED = 1
EXIT_BAD_INPUT = 2
EXIT_DOCTOR_ERROR = 3

__all__ = ["EXIT_BAD_INPUT", "EXIT_DOCTOR_ERROR", "EXIT_OK", "EXIT_UNEXPECTED", "ConfigError", "FileError",
           "PosembError", "ValueRefusal", "brief", "naming", "option"]

_KEY = re.compile("\x00([a-z][a-z_]*)\x00")  # an option of the request, named in a refusal's text (``option``)


class PosembError(Exception):
    """Bad usage or bad input: a one-line message and exit status 2.

    The message may name options of the request (``option``): a layer below the request refuses under the
    request's key (``ids``), never under a flag's spelling, and the layer that knows how the user gave the request
    words it (``request.words.worded``: ``--ids``). Left as it is, an option reads as its key.
    """

    exit_code = EXIT_BAD_INPUT

    def __str__(self) -> str:
        return naming(super().__str__(), lambda key: key)

    def worded(self, name: Callable[[str], str]) -> str:
        """The message, each option in it named by ``name``."""
        return naming(super().__str__(), name)


def option(key: str) -> str:
    """The request's option ``key`` (``ids``) written into a refusal's text, for the layer that words the refusal to
    name it as the user gave it (``PosembError.worded``); a marker no path or command-line value holds."""
    return f"\x00{key}\x00"


def naming(text: str, name: Callable[[str], str]) -> str:
    """``text`` with each option written into it (``option``) as ``name`` names that key."""
    return _KEY.sub(lambda found: name(found.group(1)), text)


class FileError(PosembError):
    """A refusal about one file, saying nothing of the flag or name that gave it.

    The layer that knows how the user named the file words it: a model's files by how MODEL or a flag named the
    model (``run.models.model_source``), an input given under a key of the request (``key``: ``ids``) as that
    key's option (``--ids PATH: DETAIL``); left as it is, it reads ``PATH: DETAIL``.

    Attributes:
        path: the file (or directory) the refusal is about, as the reader was given it.
        detail: what is wrong with it; it may name an option of the request (``option``: ``set by --vocab``).
        part: the part of the file meant, written after the path (``(config.json)``), or empty.
        key: the request's key the file was given under, for an input that is no model's file; else None.
    """

    def __init__(self, path: str, detail: str, *, part: str = "", key: str | None = None) -> None:
        head = path if key is None else f"{option(key)} {path}"
        super().__init__(f"{head}{' ' + part if part else ''}: {detail}")
        self.path, self.detail, self.part, self.key = path, detail, part, key


class ConfigError(FileError):
    """A refusal of a setting the model's config gives (a config.json field, a GGUF file's metadata as read).

    Said as ``--config`` reads it wherever the file is not named by MODEL, whichever flag named the model.
    """


class ValueRefusal(PosembError):
    """A refusal of a value of the request, under the request's key (``device``), never the option's spelling.

    Read as ``--device cuda:3: DETAIL`` once worded (``PosembError.worded``).

    Attributes:
        key: the request's key the value was given under.
        value: the value as the user gave it, or None where the option alone is meant (``--text: give a file``).
        detail: what is wrong, and what is allowed; it may name other options of the request (``option``).
        lead: what joins the option and its value to the detail (``": "``; ``" "`` for a line that reads on:
            ``--ids needs a file path``).
    """

    def __init__(self, key: str, value: object, detail: str, *, lead: str = ": ") -> None:
        super().__init__(f"{option(key)}{'' if value is None else f' {value}'}{lead}{detail}")
        self.key, self.value, self.detail, self.lead = key, value, detail, lead


def brief(detail: object, width: int = 120) -> str:
    """A library's error text for a one-line message: one line, its first sentence, at most ``width`` characters."""
    text = " ".join(str(detail).split())
    first = text.split(". ")[0]
    return first if len(first) <= width else first[:width - 3] + "..."
