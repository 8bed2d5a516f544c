"""Start-up: whole `posemb` processes against the floors they cannot beat, timed round-robin.

`posemb --help`, `--version` and every subcommand's `--help` against
`python -c "import typer, rich"` (target: within 2x); `posemb compare --dim 64
--ctx 512 --json` against `python -c "import torch"` (target: within 1.3x).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def posemb_command() -> list[str]:
    """The installed `posemb` script next to this interpreter, else `python -m posemb_cli`."""
    script = Path(sys.executable).with_name("posemb")
    return [str(script)] if script.exists() else [sys.executable, "-m", "posemb_cli"]


def subcommands() -> list[str]:
    code = ("import json, typer\nfrom posemb_cli.cli.app import app\n"
            "print(json.dumps(sorted(typer.main.get_command(app).commands)))")
    return json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def commands() -> dict[str, list[str]]:
    posemb = posemb_command()
    table = {
        "floor: import typer, rich": [sys.executable, "-c", "import typer, rich"],
        "floor: import torch": [sys.executable, "-c", "import torch"],
        "posemb --help": [*posemb, "--help"],
        "posemb --version": [*posemb, "--version"],
    }
    for name in subcommands():
        table[f"posemb {name} --help"] = [*posemb, name, "--help"]
    table["posemb compare --dim 64 --ctx 512 --json"] = [*posemb, "compare", "--dim", "64", "--ctx", "512",
                                                         "--device", "cpu", "--json"]
    return table


def _run(argv: list[str]) -> float:
    env = {**os.environ, "COLUMNS": "100"}
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"benchmark: {' '.join(argv)} exited {done.returncode}")
    return elapsed


def measure(rounds: int) -> dict:
    """Median wall seconds of each command over ``rounds`` interleaved rounds, and the ratios."""
    table = commands()
    for argv in table.values():  # warm the file cache and .pyc files
        _run(argv)
    samples: dict[str, list[float]] = {name: [] for name in table}
    for _ in range(rounds):
        for name, argv in table.items():
            samples[name].append(_run(argv))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    light = medians["floor: import typer, rich"]
    heavy = medians["floor: import torch"]
    rows = []
    for name, median in medians.items():
        if name.startswith("floor"):
            continue
        floor, target = (heavy, 1.3) if "--json" in name else (light, 2.0)
        rows.append({"command": name, "median_s": median, "ratio": median / floor, "target": target,
                     "met": median / floor <= target})
    return {"rounds": rounds, "floors": {"typer_rich_s": light, "torch_s": heavy}, "rows": rows}


def report(result: dict) -> str:
    floors = result["floors"]
    lines = [f"start-up, median of {result['rounds']} interleaved rounds: "
             f"import typer, rich {floors['typer_rich_s'] * 1e3:.0f} ms; import torch {floors['torch_s'] * 1e3:.0f} ms"]
    for row in result["rows"]:
        lines.append(f"  {row['command']:<45} {row['median_s'] * 1e3:7.0f} ms  {row['ratio']:5.2f}x "
                     f"(target <= {row['target']}x: {'met' if row['met'] else 'NOT met'})")
    return "\n".join(lines)
