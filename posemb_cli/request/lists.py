"""Comma lists of flag values (``--dim 64,128``), parsed and checked without importing torch."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

from posemb_cli.errors import PosembError
from posemb_cli.run.config import shown

T = TypeVar("T")


def _items(flag: str, text: str, example: str) -> list[str]:
    items = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise PosembError(f"{flag} needs a comma list such as {example}, got {shown(text)}")
    return items


def _no_repeats(flag: str, text: str, values: list) -> None:
    if len(set(values)) != len(values):
        raise PosembError(f"{flag}: each value may be given once, got {text!r}")


def _parse(flag: str, text: str, example: str, one: Callable[[str], T]) -> tuple[T, ...]:
    """Each item of the comma list through ``one`` (which refuses a bad item), then no repeats."""
    values = [one(item) for item in _items(flag, text, example)]
    _no_repeats(flag, text, values)
    return tuple(values)


def parse_int_list(flag: str, text: str, *, example: str = "64,128") -> tuple[int, ...]:
    """Split ``text`` into distinct positive integers, or raise PosembError naming ``flag``."""
    def positive(item: str) -> int:
        try:
            value = int(item)
        except ValueError:
            raise PosembError(f"{flag}: {shown(item)} is not an integer; give a comma list of positive integers "
                              f"such as {example}") from None
        if value < 1:
            raise PosembError(f"{flag}: {value} is not a positive integer; give a comma list such as {example}")
        return value
    return _parse(flag, text, example, positive)


def parse_float_list(flag: str, text: str, *, example: str = "10000,500000") -> tuple[float, ...]:
    """Split ``text`` into distinct finite numbers, or raise PosembError naming ``flag``."""
    def finite(item: str) -> float:
        value = float(item) if _is_float(item) else None
        if value is None:
            raise PosembError(f"{flag}: {shown(item)} is not a number; give a comma list such as {example}")
        if not math.isfinite(value):
            raise PosembError(f"{flag}: {shown(item)} is not a finite number; give a comma list such as {example}")
        return value
    return _parse(flag, text, example, finite)


def parse_choice_list(flag: str, text: str, allowed: tuple[str, ...], *, example: str) -> tuple[str, ...]:
    """Split ``text`` into distinct names from ``allowed``, or raise PosembError naming ``flag``."""
    def known(item: str) -> str:
        if item not in allowed:
            raise PosembError(f"{flag}: {shown(item)} is not one of {', '.join(allowed)}")
        return item
    return _parse(flag, text, example, known)


def _is_float(item: str) -> bool:
    try:
        float(item)
    except ValueError:
        return False
    return True
