"""Where each key of a JSON config is written, against a line-by-line reading of pretty-printed JSON.

The oracle reads ``json.dumps(value, indent=2)`` one line at a time: a line ``<indent>"key": `` holds
a key, its indentation says how deep, and a stack of the enclosing keys gives its dotted path (an
array's line opens a level whose keys have no path). Values are drawn with hypothesis: nested
objects and arrays, keys with quotes, backslashes, dots, colons, newlines and non-ASCII letters.
"""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from posemb_cli.commands.doctor.key_lines import key_places

_KEY_LINE = re.compile(r'^( *)("(?:[^"\\]|\\.)*"): (.*)$')
keys = st.text(st.sampled_from('ab_"\\:,{}[] \né'), min_size=1, max_size=6).filter(lambda key: "." not in key)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(st.sampled_from('x:"{['), max_size=3))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(keys, inner, max_size=4)), max_leaves=12)
documents = st.dictionaries(keys, values, max_size=5)


def oracle(text: str) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    stack: list[tuple[int, str | None]] = []  # (indent of the lines inside, path or None for an array)
    for number, line in enumerate(text.split("\n"), start=1):
        indent = len(line) - len(line.lstrip(" "))
        while stack and indent < stack[-1][0]:
            stack.pop()
        match = _KEY_LINE.match(line)
        inside_array = any(path is None for _, path in stack)
        if match is not None and not inside_array:
            name = json.loads(match.group(2))
            path = f"{stack[-1][1]}.{name}" if stack and stack[-1][1] else name
            found[path] = (number, indent + 1)
            rest = match.group(3)
            if rest in ("{", "["):
                stack.append((indent + 2, path if rest == "{" else None))
        elif line.rstrip().endswith("[") or (match is not None and match.group(3) in ("{", "[")):
            stack.append((indent + 2, None))
        elif line.strip() == "{" and stack and stack[-1][1] is None:
            stack.append((indent + 2, None))
    return found


@settings(max_examples=300, deadline=None)
@given(documents)
def test_every_key_is_found_at_its_line_and_column(document):
    text = json.dumps(document, indent=2)
    places = key_places(text)
    assert {path: (place.line, place.column) for path, place in places.items()} == oracle(text)


@settings(max_examples=100, deadline=None)
@given(documents)
def test_compact_json_gives_the_same_keys_on_line_one(document):
    text = json.dumps(document, ensure_ascii=False)
    places = key_places(text)
    assert set(places) == set(oracle(json.dumps(document, indent=2)))
    for path, place in places.items():
        assert place.line == 1 and text[place.column - 1] == '"', path


def test_a_key_written_twice_keeps_its_last_place():
    text = '{\n"a": {"x": 1},\n"b": 2,\n"a": {"y": 3}\n}'
    assert json.loads(text) == {"a": {"y": 3}, "b": 2}
    places = key_places(text)
    assert set(places) == {"a", "a.y", "b"} and places["a"].line == 4 and places["a.y"].line == 4


def test_text_that_is_not_json_gives_what_was_read():
    assert set(key_places('{"a": {"b": 1, "c": ')) == {"a", "a.b", "a.c"}
    assert key_places("") == {} and key_places("[1, 2]") == {}
