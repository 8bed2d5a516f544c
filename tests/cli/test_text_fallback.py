"""The plain-output rules: ASCII spellings where the stream cannot encode ours, no escape codes under NO_COLOR."""

import io

import pytest
from posemb_cli.cli.text_fallback import (
    ASCII_SYMBOLS,
    AsciiWriter,
    ascii_locale,
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


@pytest.mark.parametrize("environ,expected", [
    ({"LC_ALL": "C"}, True), ({"LC_ALL": "POSIX", "LANG": "C.UTF-8"}, True), ({"LANG": "C"}, True),
    ({"LC_ALL": "C.UTF-8"}, False), ({"LC_ALL": "", "LC_CTYPE": "en_US.UTF-8", "LANG": "C"}, False), ({}, False),
])
def test_which_locales_ask_for_ascii(environ, expected):
    assert ascii_locale(environ) is expected


@pytest.mark.parametrize("args", [["compare", "--dim", "64", "--ctx", "512"], ["inspect", "--scheme", "rope"],
                                  ["order"], ["precision"]])
def test_lc_all_c_prints_only_ascii(args):
    """Under LC_ALL=C every byte on stdout and stderr is ASCII, though Python's UTF-8 mode would write UTF-8."""
    from posemb_cli.cli.app import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, args, env={"LC_ALL": "C", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes.isascii() and result.stderr_bytes.isascii()
    assert "+-" in result.stdout  # Rich's ASCII boxes
