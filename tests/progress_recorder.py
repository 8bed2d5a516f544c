"""A Progress (``posemb_cli.core.progress``) that keeps every stage a run names, for tests to read back."""

from __future__ import annotations


class Recorder:
    """Keeps every stage as [name, total, units advanced in it]."""

    def __init__(self) -> None:
        self.stages: list[list] = []

    def stage(self, name: str, total: int | None = None) -> None:
        self.stages.append([name, total, 0])

    def advance(self, done: int = 1) -> None:
        self.stages[-1][2] += done

    @property
    def named(self) -> list[tuple[str, int | None]]:
        """(name, total) of every stage, in order."""
        return [(name, total) for name, total, _ in self.stages]

    @property
    def done(self) -> int:
        """The units advanced over the whole run."""
        return sum(done for _, _, done in self.stages)
