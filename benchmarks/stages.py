"""Where one `posemb inspect` run spends its time: the wall time of each stage it reports, in one process.

The run layer names each stage as it starts (``run/progress.py``); this script
hands `posemb inspect` a progress object that notes the time of each, so the
figures are of the real command, flags and all. Torch is imported first and
timed on its own; opening a real model (``--checkpoint``, ``--config``: its
header, and the table's finiteness check, the first read of every value) is
timed apart from the analysis.

    PYTHONPATH=. .venv/bin/python benchmarks/stages.py --checkpoint gpt2/model.safetensors --vocab 1024
    PYTHONPATH=. .venv/bin/python benchmarks/stages.py --scheme rope --dim 128 --head-dim 128 --ctx 10485760
"""

from __future__ import annotations

import contextlib
import io
import sys
import time


class Marks:
    """The run's stages as they start: (name, perf_counter)."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, float]] = [("start", time.perf_counter())]

    def stage(self, name: str, total: int | None = None) -> None:
        self.marks.append((name, time.perf_counter()))

    def advance(self, done: int = 1) -> None:
        return None

    def durations(self) -> list[tuple[str, float]]:
        return [(name, later - at) for (name, at), (_, later) in zip(self.marks, self.marks[1:], strict=False)]


def run(flags: list[str]) -> list[tuple[str, float]]:
    """The stages of ``posemb inspect FLAGS --json`` and their wall times, in order."""
    marks = Marks()
    import torch  # noqa: F401  (timed as its own stage)

    marks.stage("open the model (header, finiteness check)")
    import posemb_cli.cli.commands.inspect as command
    import posemb_cli.run.real_sources as sources
    from posemb_cli.cli.app import app

    opened = sources.open_real_model

    def open_real_model(**kwargs):
        found = opened(**kwargs)
        marks.stage("analysis starts")
        return found

    @contextlib.contextmanager
    def run_progress(_name: str):
        yield marks

    sources.open_real_model = open_real_model
    command.run_progress = run_progress
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        app(["inspect", *flags, "--json"])  # posemb's app exits with the command's status
    marks.stage("end")
    named = marks.durations()
    named[0] = ("import torch", named[0][1])
    return [(name, seconds) for name, seconds in named if name != "end"]


if __name__ == "__main__":
    stages = run(sys.argv[1:])
    total = sum(seconds for _, seconds in stages)
    for name, seconds in stages:
        print(f"{seconds:8.3f} s  {name}")
    print(f"{total:8.3f} s  in all")
