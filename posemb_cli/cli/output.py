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


@contextmanager
def row_progress(description: str):
    """A transient progress bar on stderr when it is a terminal; yields an update callback or None."""
    console = stderr_console()
    if not console.is_terminal:
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
