"""The plain-output rules: ASCII spellings where the stream cannot encode ours, no escape codes under NO_COLOR."""

import io

import pytest
from posemb_cli.cli.text_fallback import (
    ASCII_SYMBOLS,
    AsciiWriter,
    can_encode_symbols,
    plain_styles,
)
from rich.console import Console
from rich.table import Table


def stream(encoding: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", write_through=True)


@pytest.mark.parametrize("encoding,expected", [("utf-8", True), ("ascii", False), ("latin-1", False),
                                               ("cp1252", False)])
def test_which_encodings_need_the_fallback(encoding, expected):
    assert can_encode_symbols(stream(encoding)) is expected


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_table_with_every_symbol_is_written_in_ascii(encoding):
    target = stream(encoding)
    table = Table("shape", "bar", title="B\u00d7T")
    table.add_row("(4, 32) \u2026 \u2212 1", "\u2588\u2588\u258c \u2713 \u2717")
    Console(file=AsciiWriter(target), width=60, color_system=None).print(table)
    text = target.buffer.getvalue().decode("ascii")  # every byte is ASCII
    assert "BxT" in text and "(4, 32) ... - 1" in text and "##| ok no" in text
    assert "+-" in text  # Rich's ASCII box: the stream is not UTF-8


def test_every_spelling_is_ascii():
    assert all(spelt.isascii() and spelt for spelt in ASCII_SYMBOLS.values())


@pytest.mark.parametrize("environ,plain", [({}, False), ({"NO_COLOR": "1"}, True), ({"NO_COLOR": ""}, False),
                                           ({"TERM": "dumb"}, True), ({"TERM": "xterm"}, False)])
def test_when_styles_are_left_out(environ, plain):
    assert plain_styles(environ) is plain
