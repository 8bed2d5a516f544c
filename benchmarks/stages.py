"""Where one `posemb inspect` run spends its time: the wall time of each stage it reports, in one process.

The run layer names each stage as it starts (``run/progress.py``); this script
hands `posemb inspect` a progress object that notes the time of each, so the
figures are of the real command, flags and all. Torch is imported first and
timed on its own; opening a real model (``--checkpoint``, ``--config``: its
header, and the table's finiteness check, the first read of every value) is
timed apart from the analysis.

    PYTHONPATH=. .venv/bin/python benchmarks/stages.py --checkpoint gpt2/model.safetensors --vocab 1024
    PYTHONPATH=. .venv/bin/python benchmarks/stages.py --scheme rope --dim 128 --head-dim 128 --ctx 10485760
    PYTHONPATH=. .venv/bin/python benchmarks/stages.py --cases --json stages.json   # each case of long_context.py

``--cases`` runs each default case of ``long_context.py`` (the rows of issue 29 that concern ``inspect``)
in a fresh process of this script, and records every stage of each, with the command, in one document.

On a shared machine, ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` gives CPU seconds that other work
barely moves (threads that wait for a busy core spin and inflate both figures).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class Marks:
    """The run's stages as they start: (name, wall clock, process CPU time)."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, float, float]] = [("start", time.perf_counter(), time.process_time())]

    def stage(self, name: str, total: int | None = None) -> None:
        self.marks.append((name, time.perf_counter(), time.process_time()))

    def advance(self, done: int = 1) -> None:
        return None

    def durations(self) -> list[tuple[str, float, float]]:
        return [(name, wall - at, cpu - spent) for (name, at, spent), (_, wall, cpu)
                in zip(self.marks, self.marks[1:], strict=False)]


def run(flags: list[str]) -> list[tuple[str, float, float]]:
    """The stages of ``posemb inspect FLAGS --json``, with their wall and CPU seconds, in order."""
    marks = Marks()
    import torch  # noqa: F401  (timed as its own stage)

    marks.stage("open the model (header, finiteness check)")
    import posemb_cli.cli.commands.inspect as command
    import posemb_cli.run.models.real_sources as sources
    from posemb_cli.cli.app import app

    opened = sources.open_real_model

    def open_real_model(**kwargs):
        found = opened(**kwargs)
        marks.stage("analysis starts")  # merged into the stage before the first the run names
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
    named[0] = ("import torch", *named[0][1:])
    return [entry for entry in named if entry[0] not in ("end", "analysis starts")]


def every_case(path: str | None) -> dict:
    """The stages of each default case of ``long_context.py``, each in a fresh process: {case: {command, stages}}."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import long_context

    found: dict = {"machine": long_context.machine(), "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "cases": {}}
    with tempfile.TemporaryDirectory() as folder:
        config, checkpoint = long_context.write_inputs(Path(folder))
        for name, command in long_context.cases(config, checkpoint).items():
            if name == long_context.LIMITED:
                continue  # the same flags as rope_100m_dim64
            flags = command[4:-1]  # [python, -m, posemb_cli, inspect, *flags, --json]
            done = subprocess.run([sys.executable, __file__, *flags, "--emit-json"], capture_output=True, text=True,
                                  check=True)
            stages = json.loads(done.stdout.splitlines()[-1])
            shown = ["inspect", *(flag.replace(folder, "$TMP") for flag in flags), "--json"]
            found["cases"][name] = {"command": " ".join(shown), "stages": stages}
            print(f"{name}: " + ", ".join(f"{stage} {wall:.2f} s" for stage, wall, _ in stages), flush=True)
    found["ended"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    if path:
        Path(path).write_text(json.dumps(found, indent=1) + "\n")
    return found


if __name__ == "__main__":
    if sys.argv[1:2] == ["--cases"]:
        every_case(sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None)
        sys.exit(0)
    emit = "--emit-json" in sys.argv
    stages = run([flag for flag in sys.argv[1:] if flag != "--emit-json"])
    if emit:
        print(json.dumps(stages))
        sys.exit(0)
    print(f"{'wall':>9} {'cpu':>9}  stage")
    for name, wall, cpu in stages:
        print(f"{wall:8.3f}s {cpu:8.3f}s  {name}")
    print(f"{sum(s[1] for s in stages):8.3f}s {sum(s[2] for s in stages):8.3f}s  in all")
