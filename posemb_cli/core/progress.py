"""How a run reports what it is doing: a small protocol the run layer calls and a display implements.

A run names each stage as it starts (``stage``), with the amount of work it
holds when that is known, and reports work done (``advance``). The display
(a Rich bar on a terminal's stderr) lives in the cli layer; the run layer only
calls these two methods, so it never prints.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["SILENT", "Prefixed", "Progress", "Silent", "or_silent"]


@runtime_checkable
class Progress(Protocol):
    """Receives the stages of a run and the work done in each."""

    def stage(self, name: str, total: int | None = None) -> None:
        """A new stage begins: ``name`` for people, ``total`` units of work (None: not known)."""

    def advance(self, done: int = 1) -> None:
        """``done`` more units of the current stage are finished."""


class Silent:
    """The progress of a run nobody watches: every call does nothing."""

    def stage(self, name: str, total: int | None = None) -> None:
        return None

    def advance(self, done: int = 1) -> None:
        return None


SILENT = Silent()


def or_silent(progress: Progress | None) -> Progress:
    """``progress``, or the silent one when None was given."""
    return SILENT if progress is None else progress


class Prefixed:
    """Forwards to ``inner``, naming every stage ``"{prefix}: {name}"`` (e.g. the scheme it belongs to)."""

    def __init__(self, inner: Progress, prefix: str) -> None:
        self.inner, self.prefix = inner, prefix

    def stage(self, name: str, total: int | None = None) -> None:
        self.inner.stage(f"{self.prefix}: {name}", total)

    def advance(self, done: int = 1) -> None:
        self.inner.advance(done)
