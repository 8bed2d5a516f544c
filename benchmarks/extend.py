"""`posemb extend` as whole processes against `python -c "import torch"`: wall time and peak RSS.

Cases: SmolLM2-135M (Q4_1) at 32,768 and Gemma 3 270M (Q4_K_M) at 131,072, GGUF files, when present
(``POSEMB_REAL_MODELS``, else ~/.cache/posemb-real-models): the header, every layer's q/k weights
dequantised and measured as ``posemb heads`` measures them, six candidates classified; and Llama-3.1-8B's
config.json alone at 524,288 (no weights: pairs weighted equally).

Each case runs right after an ``import torch`` process, in rounds (``long_context.run_once``: a small
parent times one child and reads its peak RSS); ratios are to the median ``import torch``, peaks above the
largest ``import torch`` peak. Target (issue 26): the GGUF files within 2x ``import torch``.

    PYTHONPATH=. .venv/bin/python benchmarks/extend.py --json out.json
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heads import GGUF  # noqa: E402
from long_context import LLAMA31_8B, run_once  # noqa: E402

TARGETS = {"smollm2_135m_q4_1": 32768, "gemma3_270m_q4_k_m": 131072}


def extend(path: str, to: int) -> list[str]:
    return [sys.executable, "-m", "posemb_cli", "extend", path, "--to", str(to), "--json"]


def measure(*, rounds: int = 3) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.json"
        config.write_text(json.dumps(LLAMA31_8B))
        commands = {name: extend(str(path), TARGETS[name]) for name, path in GGUF.items() if path.is_file()}
        commands["llama31_8b_config"] = extend(str(config), 524288)
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


def report(figures: dict) -> str:
    floor = figures["import_torch"]
    lines = [f"posemb extend (import torch: {floor['wall_s']:.2f} s, peak {floor['peak_bytes'] / 2**20:.0f} MiB)",
             f"{'case':<24}{'wall':>9}{'x torch':>9}{'peak':>11}{'above torch':>13}"]
    for name, row in figures["cases"].items():
        lines.append(f"{name:<24}{row['wall_s']:>8.1f}s{row['ratio_to_import_torch']:>8.2f}x"
                     f"{row['peak_bytes'] / 2**20:>8.0f} MiB{row['peak_above_import_torch_bytes'] / 2**20:>9.0f} MiB")
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every case (medians are recorded)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH as JSON")
    args = parser.parse_args()
    figures = measure(rounds=args.rounds)
    print(report(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
