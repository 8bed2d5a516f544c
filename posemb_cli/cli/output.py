"""Where results and messages go: results to stdout, everything else to stderr."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO, cast

if TYPE_CHECKING:
    from rich.console import Console


# rich.console is imported when a console is made, not at import: --help and --version never need it.
def stdout_console() -> Console:
    """The console for results: ASCII symbols when stdout cannot encode ours, no escape codes under NO_COLOR."""
    return _console(sys.stdout, stderr=False)


def stderr_console() -> Console:
    return _console(sys.stderr, stderr=True)


def _console(stream: TextIO, *, stderr: bool) -> Console:
    from rich.console import Console

    from posemb_cli.cli.text_fallback import (
        AsciiWriter,
        can_encode_symbols,
        plain_styles,
    )

    file = stream if can_encode_symbols(stream) else cast(TextIO, AsciiWriter(stream))
    plain = plain_styles()
    return Console(file=file, stderr=stderr, color_system=None if plain else "auto", no_color=True if plain else None)


def write_json(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


@contextmanager
def row_progress(description: str):
    """A transient progress bar on stderr when it is a terminal; yields an update callback or None."""
    from posemb_cli.cli.text_fallback import plain_styles

    console = stderr_console()
    if not console.is_terminal or plain_styles():  # a live bar moves the cursor with escape codes
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        tasks: dict[str, int] = {}

        def update(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = progress.add_task(f"{description} {name}", total=total)
            progress.advance(tasks[name], done)

        yield update
