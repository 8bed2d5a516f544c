"""Run every posemb speed benchmark in one go and print the ratios (stdlib + the project only).

    .venv/bin/python benchmarks/run.py                 # the recorded run, ~5-10 min on 2 cores
    .venv/bin/python benchmarks/run.py --quick         # small sizes, a smoke test in ~1 min
    .venv/bin/python benchmarks/run.py --json out.json # also keep every figure

Every figure is a ratio of things timed side by side in the same run (round-robin
or alternating fresh processes), so that a shared, noisy machine moves both sides
alike. See benchmarks/README.md for the recorded figures.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import composer  # noqa: E402
import neighbours  # noqa: E402
import startup  # noqa: E402
import sweep_once  # noqa: E402


def machine() -> dict:
    import torch

    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import os

    return {"cpu": cpu, "cores": os.cpu_count(), "torch": torch.__version__, "threads": torch.get_num_threads(),
            "python": platform.python_version(), "cuda": torch.cuda.is_available()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes and few repeats: a smoke test")
    parser.add_argument("--only", choices=["startup", "composer", "neighbours", "sweep"], action="append",
                        help="run only these sections (repeatable)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH as JSON")
    args = parser.parse_args()
    sections = args.only or ["startup", "composer", "neighbours", "sweep"]
    figures = {"machine": machine(), "quick": args.quick}
    print("machine: {cpu}, {cores} cores, torch {torch} ({threads} threads), Python {python}".format(
        **figures["machine"]), flush=True)
    if "startup" in sections:
        figures["startup"] = startup.measure(rounds=3 if args.quick else 10)
        print(startup.report(figures["startup"]), flush=True)
    if "composer" in sections:
        size = dict(dim=256, seq_len=512, batch=4, repeats=5) if args.quick else \
            dict(dim=1024, seq_len=2048, batch=8, repeats=30)
        figures["composer"] = composer.measure(schemes=("learned", "sinusoidal"), **size)
        print(composer.report(figures["composer"]), flush=True)
    if "neighbours" in sections:
        size = dict(rows=4096, dim=1024, repeats=1) if args.quick else dict(rows=32768, dim=4096, repeats=3)
        figures["neighbours"] = neighbours.measure(max_offset=16, **size)
        print(neighbours.report(figures["neighbours"]), flush=True)
    if "sweep" in sections:
        figures["sweep"] = sweep_once.measure(rounds=1 if args.quick else 3)
        print(sweep_once.report(figures["sweep"]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
