"""Where results and messages go: results to stdout, everything else to stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO, cast

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
        ascii_locale,
        can_encode_symbols,
        plain_styles,
    )

    if ascii_locale():  # an ASCII locale: Rich then draws ASCII boxes, and the writer spells the symbols
        file = cast(TextIO, AsciiWriter(stream, encoding="ascii"))
    else:
        file = stream if can_encode_symbols(stream) else cast(TextIO, AsciiWriter(stream))
    plain = plain_styles()
    return Console(file=file, stderr=stderr, color_system=None if plain else "auto", no_color=True if plain else None)


def write_json(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def emit(report: Any, as_json: bool, view: Callable[[Any], Any] | None = None) -> None:
    """Print a command's result: its JSON document (one line) under ``--json``, else the report itself for people.

    Args:
        report: the command's report: ``to_dict()`` is its document, ``__rich__`` its tables.
        view: what people see of it (its command's renderer, imported by the call only when drawn, so a JSON run
            never loads it); None: the report's own ``__rich__``.
    """
    if as_json:
        from posemb_cli.run.report import to_json

        write_json(to_json(report.to_dict()))
        return
    stdout_console().print(report if view is None else view(report))


class _StageBar:
    """One Rich bar for the whole run: its description is the current stage, its fraction that stage's."""

    def __init__(self, progress, task) -> None:
        self._progress, self._task = progress, task

    def stage(self, name: str, total: int | None = None) -> None:
        # Drawn at once: a stage shorter than the refresh interval is still seen.
        self._progress.update(self._task, description=name, total=total, completed=0, refresh=True)

    def advance(self, done: int = 1) -> None:
        self._progress.advance(self._task, done)


@contextmanager
def run_progress(first_stage: str = "starting"):
    """One transient progress display on stderr when it is a terminal, shown from the first moment.

    Yields an object with ``stage(name, total)`` and ``advance(done)`` (the run layer's ``Progress``
    protocol), or None when stderr is not a terminal: then nothing is drawn at all. The bar
    redraws ten times a second from its own thread, so a long stage shows its elapsed time growing.
    """
    from posemb_cli.cli.text_fallback import plain_styles

    console = stderr_console()
    if not console.is_terminal or plain_styles():  # a live bar moves the cursor with escape codes
        yield None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
                  console=console, transient=True, refresh_per_second=10) as progress:
        yield _StageBar(progress, progress.add_task(first_stage, total=None))
