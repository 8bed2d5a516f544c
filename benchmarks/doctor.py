"""`posemb doctor` as a linter: whole processes against `python -c "import typer, rich, numpy"`, round-robin.

The config is Llama-3.1-8B's published config.json (bfloat16, 131,072 positions, llama3 scaling),
written here. Each round runs the floor, then `posemb doctor --config FILE` in each output format
(tables, `--json`, `--format github`, `--format sarif`), one fresh process each; the ratios are
of medians. Target (issue 29): within 3x the floor, and no torch imported (checked once per case,
in a process that reports ``sys.modules`` when the command is done). One more case says where the
time goes: the tables with the base-bound rule's scan left out.

    PYTHONPATH=. .venv/bin/python benchmarks/doctor.py --json out.json
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from beside_torch import main  # noqa: E402
from long_context import LLAMA31_8B  # noqa: E402

FLOOR = "import typer, rich, numpy"
OUTPUTS = {"text": [], "json": ["--json"], "github": ["--format", "github"], "sarif": ["--format", "sarif"]}
TARGET = 3.0
# Where the time goes: the same command with the base-bound rule's scan left out (its context bound over every
# distance the layers attend, then the smallest base that covers them), timed as one more case.
_WITHOUT_BOUND = """
import sys
import posemb_cli.commands.doctor.frequency_rules as rules
rules._bound = lambda *args, **kwargs: []
from posemb_cli.cli.app import main
sys.argv = ["posemb", *sys.argv[1:]]
main()
"""
# The command run in-process, then whether torch was imported (exit status 0 or 3 is the command's own).
_PROBE = """
import sys
from posemb_cli.cli.app import main
sys.argv = ["posemb", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
sys.stderr.write(f"torch imported: {'torch' in sys.modules}, exit {code}\\n")
"""


def _run(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env={**os.environ, "COLUMNS": "100"})
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 3):  # 3: doctor found an error (not in this config)
        raise SystemExit(f"benchmark: {' '.join(argv)} exited {done.returncode}")
    return elapsed


def imports_torch(arguments: list[str]) -> bool:
    done = subprocess.run([sys.executable, "-c", _PROBE, *arguments], capture_output=True, text=True, check=True)
    return "torch imported: True" in done.stderr


def measure(rounds: int = 10) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.json"
        config.write_text(json.dumps(LLAMA31_8B, indent=2))
        cases = {name: ["doctor", "--config", str(config), *flags] for name, flags in OUTPUTS.items()}
        commands = {"floor": [sys.executable, "-c", FLOOR],
                    **{name: [sys.executable, "-m", "posemb_cli", *case] for name, case in cases.items()},
                    "text_without_bound_scan": [sys.executable, "-c", _WITHOUT_BOUND, *cases["text"]]}
        for argv in commands.values():  # warm the file cache and .pyc files
            _run(argv)
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, argv in commands.items():
                samples[name].append(_run(argv))
        torch = {name: imports_torch(case) for name, case in cases.items()}
    floor = statistics.median(samples["floor"])
    rows = {name: {"wall_s": statistics.median(samples[name]), "walls_s": samples[name],
                   "ratio_to_floor": statistics.median(samples[name]) / floor, "imports_torch": torch.get(name)}
            for name in commands if name != "floor"}
    return {"rounds": rounds, "floor": {"command": f'python -c "{FLOOR}"', "wall_s": floor,
                                        "walls_s": samples["floor"]},
            "target_ratio": TARGET, "cases": rows}


def report(figures: dict) -> str:
    floor = figures["floor"]
    lines = [f"posemb doctor on a bfloat16 Llama-3.1-8B config.json, median of {figures['rounds']} interleaved "
             f"rounds ({floor['command']}: {floor['wall_s'] * 1e3:.0f} ms)",
             f"{'format':<8}{'wall':>9}{'x floor':>9}  torch  target"]
    for name, row in figures["cases"].items():
        if row["imports_torch"] is None:  # the breakdown case: no target of its own
            lines.append(f"{name}: {row['wall_s'] * 1e3:.0f} ms, {row['ratio_to_floor']:.2f}x")
            continue
        met = row["ratio_to_floor"] <= figures["target_ratio"] and not row["imports_torch"]
        lines.append(f"{name:<8}{row['wall_s'] * 1e3:>7.0f}ms{row['ratio_to_floor']:>8.2f}x  "
                     f"{'yes' if row['imports_torch'] else 'no':<5}  {'met' if met else 'NOT met'}")
    return "\n".join(lines)


if __name__ == "__main__":
    main(__doc__, measure, report, rounds=10, rounds_help="interleaved rounds (medians are recorded)")
