"""One option's value read as the command line reads its text: a number, a flag or a choice.

The rules are the command line's own (lax): ``"3"``, ``" 3 "``, ``"3.0"`` and ``"1_000"``
are integers, ``"1e3"`` and ``"inf"`` numbers, ``"yes"`` and ``"0"`` flags. A value refused
raises ``PosembError`` with the one line the CLI prints for the same text, e.g.
``--dim: 'abc' is not a valid integer``.
"""

from __future__ import annotations

import math
import re
from typing import Any

from posemb_cli.errors import PosembError

__all__ = ["to_bool", "to_choice", "to_float", "to_int", "to_str", "refusal"]

_INT_TEXT = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*(?:\.0+)?")
_VALID = re.compile(r"Input should be a valid (\w+)")
_KINDS = {"int": "integer", "float": "number", "bool": "boolean"}
_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})
_INT_LIMIT = 2 ** 63  # a float at or past it is no integer the command line takes


def refusal(flag: str, value: Any, detail: str) -> PosembError:
    """The CLI's line for ``value`` refused with ``detail``: the flag, the value as typed, what is wrong.

    Args:
        flag: the option's long name, e.g. ``--dim``.
        value: the value given (a non-string is shown as its ``str``).
        detail: the parser's reason, e.g. ``Input should be a valid integer``.

    Returns:
        The error to raise.
    """
    text = value if isinstance(value, str) else str(value)
    valid = _VALID.search(detail)
    if valid is not None:
        kind = valid.group(1)
        return PosembError(f"{flag}: {_cut(text)!r} is not a valid {_KINDS.get(kind, kind)}")
    detail = " ".join(detail.replace("Value error, ", "").split()).rstrip(".")
    if repr(text) in detail or text in detail:
        return PosembError(f"{flag}: {detail.replace(text, _cut(text))}")
    return PosembError(f"{flag}: {_cut(text)!r}: {detail}")


def _cut(text: str, most: int = 40) -> str:
    return text if len(text) <= most else f"{text[:most]}... ({len(text):,} characters)"


def _text(value: Any) -> Any:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def to_int(flag: str, value: Any) -> int:
    """An integer from an int, a bool, a whole float or its text (``"3"``, ``"3.0"``, ``"1_000"``)."""
    value = _text(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise refusal(flag, value, "Input should be a finite number")
        if not -_INT_LIMIT <= value < _INT_LIMIT:
            raise refusal(flag, value, "Unable to parse input string as an integer, exceeded maximum size")
        if not value.is_integer():
            raise refusal(flag, value, "Input should be a valid integer, got a number with a fractional part")
        return int(value)
    if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        return int(value.strip().split(".")[0])
    raise refusal(flag, value, "Input should be a valid integer, unable to parse string as an integer")


def to_float(flag: str, value: Any) -> float:
    """A number from an int, a float, a bool or its text (``"1e3"``, ``"inf"``, ``"1_000.5"``)."""
    value = _text(value)
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:
            raise refusal(flag, value, "Input should be a valid number") from None
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and not text.startswith("_") and not text.endswith("_") and "__" not in text:
            try:
                return float(text.replace("_", ""))
            except ValueError:
                pass
    raise refusal(flag, value, "Input should be a valid number, unable to parse string as a number")


def to_bool(flag: str, value: Any) -> bool:
    """A flag's value from a bool, 0 or 1, or its text (``"yes"``, ``"off"``; empty text is False)."""
    value = _text(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE or text in _FALSE or not text:
            return text in _TRUE
    elif isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    raise refusal(flag, value, "Input should be a valid boolean, unable to interpret input")


def to_str(flag: str, value: Any) -> str:
    """Text from any value (bytes decoded as UTF-8)."""
    return str(_text(value))


def to_choice(flag: str, value: Any, choices: tuple[str, ...]) -> str:
    """One of ``choices``, matched exactly (case counts)."""
    if str(value) in choices:
        return str(value)
    raise refusal(flag, value, f"{value!r} is not one of {', '.join(map(repr, choices))}.")
