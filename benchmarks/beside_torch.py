"""What the per-command benchmarks share: each case as a fresh process right after an ``import torch`` process,
in rounds, summarised as ratios to the median ``import torch``; the table they print; and their command line.

``long_context.run_once`` times one child and reads its peak RSS; peaks are reported above the largest
``import torch`` peak.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from long_context import run_once


def rounds_beside_import_torch(commands: dict[str, list[str]], rounds: int) -> dict:
    """Every command ``rounds`` times, each right after an ``import torch`` process: medians and ratios."""
    runs: dict[str, list[dict]] = {name: [] for name in commands}
    floors: list[dict] = []
    for _ in range(rounds):
        for name, command in commands.items():
            floors.append(run_once([sys.executable, "-c", "import torch"]))
            runs[name].append(run_once(command))
            print(f"  {name}: {runs[name][-1]['wall_s']:.1f} s, {runs[name][-1]['peak_bytes'] / 2**20:.0f} MiB",
                  flush=True)
    torch_wall = statistics.median(run["wall_s"] for run in floors)
    torch_peak = max(run["peak_bytes"] for run in floors)
    cases = {}
    for name, measured in runs.items():
        wall = statistics.median(run["wall_s"] for run in measured)
        peak = max(run["peak_bytes"] for run in measured)
        cases[name] = {"wall_s": wall, "walls_s": [run["wall_s"] for run in measured],
                       "cpu_s": statistics.median(run["cpu_s"] for run in measured),
                       "ratio_to_import_torch": wall / torch_wall, "peak_bytes": peak,
                       "peak_above_import_torch_bytes": peak - torch_peak}
    return {"import_torch": {"wall_s": torch_wall, "walls_s": [run["wall_s"] for run in floors],
                             "peak_bytes": torch_peak}, "cases": cases}


def table(figures: dict, title: str) -> str:
    """The cases of ``rounds_beside_import_torch`` under ``title``, one line each."""
    lines = [title, f"{'case':<24}{'wall':>9}{'x torch':>9}{'peak':>11}{'above torch':>13}"]
    for name, row in figures["cases"].items():
        lines.append(f"{name:<24}{row['wall_s']:>8.1f}s{row['ratio_to_import_torch']:>8.2f}x"
                     f"{row['peak_bytes'] / 2**20:>8.0f} MiB{row['peak_above_import_torch_bytes'] / 2**20:>9.0f} MiB")
    return "\n".join(lines)


def main(doc: str, measure: Callable[..., dict], report: Callable[[dict], str], *, rounds: int,
         rounds_help: str) -> None:
    """A benchmark's command line: --rounds and --json; the figures carry when they were taken and the load."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=rounds, help=rounds_help)
    parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH as JSON")
    args = parser.parse_args()
    before = os.getloadavg()[0]
    figures = {"taken": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), **measure(rounds=args.rounds)}
    figures["load_average_1min"] = [before, os.getloadavg()[0]]
    print(report(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
