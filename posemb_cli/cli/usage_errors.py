"""Click's usage errors as one line that echoes what was typed: "--dim: 'abc' is not a valid integer"."""

from __future__ import annotations

import re
from collections.abc import Sequence

_VALID = re.compile(r"Input should be a valid (\w+)")
_KINDS = {"int": "integer", "float": "number", "bool": "boolean"}


def given_value(opts: Sequence[str], argv: Sequence[str]) -> str | None:
    """The value typed after the last of ``opts`` in ``argv`` (``--dim abc`` or ``--dim=abc``), or None."""
    found = None
    for index, word in enumerate(argv):
        for opt in opts:
            if word == opt and index + 1 < len(argv):
                found = argv[index + 1]
            elif opt.startswith("--") and word.startswith(opt + "="):
                found = word[len(opt) + 1:]
    return found


def bad_parameter_line(exc: Exception, argv: Sequence[str]) -> str | None:
    """One line for a Click ``BadParameter`` raised for an option, naming the flag and the value; else None."""
    param = getattr(exc, "param", None)
    opts = list(getattr(param, "opts", None) or ())
    if param is None or not opts or getattr(param, "param_type_name", "") != "option":
        return None
    flag = max(opts, key=len)  # the long name
    value = given_value(opts, argv)
    if value is None:
        return None
    detail = str(getattr(exc, "message", "") or "")
    valid = _VALID.search(detail)
    if valid is not None:
        kind = valid.group(1)
        return f"{flag}: {_shown(value)!r} is not a valid {_KINDS.get(kind, kind)}"
    detail = " ".join(detail.replace("Value error, ", "").split()).rstrip(".")
    if repr(value) in detail or value in detail:
        return f"{flag}: {detail.replace(value, _shown(value))}"
    return f"{flag}: {_shown(value)!r}: {detail}"


def _shown(value: str, most: int = 40) -> str:
    """A value as typed, cut to ``most`` characters so that the refusal stays one readable line."""
    return value if len(value) <= most else f"{value[:most]}... ({len(value):,} characters)"
