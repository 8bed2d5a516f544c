"""Where results and messages go: results to stdout, everything else to stderr."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


# rich.console is imported when a console is made, not at import: --help and --version never need it.
def stdout_console() -> Console:
    from rich.console import Console

    return Console()


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


def write_json(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class _StageBar:
    """One Rich bar for the whole run: its description is the current stage, its fraction that stage's."""

    def __init__(self, progress, task) -> None:
        self._progress, self._task = progress, task

    def stage(self, name: str, total: int | None = None) -> None:
        self._progress.update(self._task, description=name, total=total, completed=0)

    def advance(self, done: int = 1) -> None:
        self._progress.advance(self._task, done)


@contextmanager
def run_progress(first_stage: str = "starting"):
    """One transient progress display on stderr when it is a terminal, shown from the first moment.

    Yields an object with ``stage(name, total)`` and ``advance(done)`` (the run layer's ``Progress``
    protocol), or None when stderr is not a terminal: then nothing is drawn at all. The bar
    redraws ten times a second from its own thread, so a long stage shows its elapsed time growing.
    """
    console = stderr_console()
    if not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
                  console=console, transient=True, refresh_per_second=10) as progress:
        yield _StageBar(progress, progress.add_task(first_stage, total=None))
