"""Comma lists of flag values (``--dim 64,128``), parsed and checked without importing torch."""

from __future__ import annotations

import math

from posemb_cli.errors import PosembError
from posemb_cli.run.config import shown


def _items(flag: str, text: str, example: str) -> list[str]:
    items = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise PosembError(f"{flag} needs a comma list such as {example}, got {shown(text)}")
    return items


def _no_repeats(flag: str, text: str, values: list) -> None:
    if len(set(values)) != len(values):
        raise PosembError(f"{flag}: each value may be given once, got {text!r}")


def parse_int_list(flag: str, text: str, *, example: str = "64,128") -> tuple[int, ...]:
    """Split ``text`` into distinct positive integers, or raise PosembError naming ``flag``."""
    values = []
    for item in _items(flag, text, example):
        try:
            value = int(item)
        except ValueError:
            raise PosembError(f"{flag}: {shown(item)} is not an integer; give a comma list of positive integers "
                              f"such as {example}") from None
        if value < 1:
            raise PosembError(f"{flag}: {value} is not a positive integer; give a comma list such as {example}")
        values.append(value)
    _no_repeats(flag, text, values)
    return tuple(values)


def parse_float_list(flag: str, text: str, *, example: str = "10000,500000") -> tuple[float, ...]:
    """Split ``text`` into distinct finite numbers, or raise PosembError naming ``flag``."""
    values = []
    for item in _items(flag, text, example):
        try:
            value = float(item)
        except ValueError:
            raise PosembError(f"{flag}: {shown(item)} is not a number; give a comma list such as {example}") from None
        if not math.isfinite(value):
            raise PosembError(f"{flag}: {shown(item)} is not a finite number; give a comma list such as {example}")
        values.append(value)
    _no_repeats(flag, text, values)
    return tuple(values)
