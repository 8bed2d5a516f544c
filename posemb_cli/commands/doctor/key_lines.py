"""Where each key of a JSON config is written: its dotted path, line and column, found in the file's text.

The JSON parser gives values, not places. Doctor's findings name config keys the
way the reading labels them (``rope_scaling.factor``,
``text_config.rope_parameters.rope_theta``), and a CI annotation wants the line a
key sits on. One pass over the text's tokens: a key of an object nested in
objects gets the dotted path of their keys; keys inside arrays get none. A key
written twice keeps its last place, as the parser keeps the last value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

# A string as the unrolled loop "[^"\\]*(?:\\.[^"\\]*)*": a run of plain characters is one step of the regex engine,
# where the alternation (?:[^"\\]|\\.)* kept a backtracking frame per character (a 50 MB value: MemoryError).
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
_IN_ARRAY = None  # a stack entry: the keys of an array's elements have no path

__all__ = ["KeyPlace", "key_places"]


@dataclass(frozen=True)
class KeyPlace:
    """Where a key's name starts: 1-based line, and 1-based column in characters."""

    line: int
    column: int


def _key_text(token: str) -> str | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def key_places(text: str) -> dict[str, KeyPlace]:
    """Every key reachable through objects alone, by dotted path (``a.b.c``), with the place of its name.

    A text that is not JSON gives what could be read before the fault; nothing here raises on it.
    """
    places: dict[str, KeyPlace] = {}
    stack: list[str | None] = []  # per open container: an object's dotted path, or _IN_ARRAY
    line, line_start, scanned = 1, 0, 0
    pending: tuple[str, KeyPlace] | None = None  # a string read in an object, waiting for its colon
    last_key: str | None = None  # the path of the key whose value comes next
    for match in _TOKENS.finditer(text):
        start, token = match.start(), match.group()
        newlines = text.count("\n", scanned, start)
        if newlines:
            line, line_start = line + newlines, text.rindex("\n", scanned, start) + 1
        scanned = start
        if token == ":" and pending is not None:
            last_key, (path, place) = pending[0], pending
            if path in places:  # written again: the parser keeps the last value, so the first's keys are gone
                for stale in [key for key in places if key == path or key.startswith(path + ".")]:
                    del places[stale]
            places[path] = place
            pending = None
            continue
        pending = None
        if token in "{[" and len(token) == 1:
            inside_objects = not stack or (stack[-1] is not _IN_ARRAY and last_key is not None)
            if token == "[" or not inside_objects:
                stack.append(_IN_ARRAY)
            else:
                stack.append(last_key if stack else "")
        elif token in "}]" and len(token) == 1:
            if stack:
                stack.pop()
        elif token.startswith('"') and stack and stack[-1] is not _IN_ARRAY:
            name = _key_text(token)
            if name is not None:
                prefix = stack[-1]
                pending = (f"{prefix}.{name}" if prefix else name, KeyPlace(line, start - line_start + 1))
        last_key = None if token != ":" else last_key
    return places
