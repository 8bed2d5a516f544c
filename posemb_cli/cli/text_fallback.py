"""Plain output for streams and terminals that cannot show it all: ASCII symbols, no escape codes.

A stdout whose encoding cannot encode the tables' characters (``PYTHONIOENCODING=ascii`` or
``latin-1``), or a locale that names plain ASCII (``LC_ALL=C`` or ``POSIX``, where Python's UTF-8
mode would otherwise write UTF-8), gets every symbol spelt in ASCII:
Rich draws ASCII boxes by itself on such a stream, and ``AsciiWriter``
replaces the symbols the renderers use ("×", "…", "−", "✓", bar blocks) as
the text is written. ``NO_COLOR`` (any non-empty value) and ``TERM=dumb``
remove every escape code, styles (bold, dim, italic) included.
"""

from __future__ import annotations

import os
from typing import TextIO

__all__ = ["ASCII_SYMBOLS", "AsciiWriter", "ascii_locale", "can_encode_symbols", "plain_styles"]

# Each symbol the renderers draw, and its ASCII spelling; bars keep their length (one cell each).
ASCII_SYMBOLS = {
    "×": "x", "…": "...", "−": "-", "–": "-", "—": "-", "·": ".", "≤": "<=", "≥": ">=", "→": "->",
    "✓": "ok", "✗": "no", "┤": "|", "└": "+", "─": "-", "│": "|",
    "▁": ".", "▂": ".", "▃": ":", "▄": ":", "▅": "+", "▆": "+", "▇": "#", "█": "#",
    "▏": "|", "▎": "|", "▍": "|", "▌": "|", "▋": "|", "▊": "|", "▉": "|",
    "░": ".", "▒": ":", "▓": "#",
}
_TABLE = str.maketrans(ASCII_SYMBOLS)
_PROBE = "".join(ASCII_SYMBOLS)


def can_encode_symbols(stream: TextIO | None) -> bool:
    """Whether ``stream``'s encoding can write every symbol the renderers use."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        _PROBE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def ascii_locale(environ: dict | None = None) -> bool:
    """True when the locale the user set names plain ASCII: the first of LC_ALL, LC_CTYPE, LANG that is set is
    ``C`` or ``POSIX`` (Python's UTF-8 mode writes UTF-8 there all the same; the user asked for ASCII)."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name)
        if value:
            return value in ("C", "POSIX")
    return False


def plain_styles(environ: dict | None = None) -> bool:
    """True when no escape code may be written: NO_COLOR set (non-empty) or TERM=dumb."""
    env = os.environ if environ is None else environ
    return bool(env.get("NO_COLOR")) or env.get("TERM") == "dumb"


class AsciiWriter:
    """A text stream that writes ``stream`` with every symbol in ASCII and anything else as '?'.

    It keeps the stream's encoding, ``isatty`` and ``fileno``, so Rich sizes and styles as before.
    """

    def __init__(self, stream: TextIO, encoding: str | None = None) -> None:
        self._stream = stream
        self.encoding = encoding or getattr(stream, "encoding", None) or "ascii"

    def write(self, text: str) -> int:
        spelt = text.translate(_TABLE).encode(self.encoding, errors="replace").decode(self.encoding)
        return self._stream.write(spelt)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()
