"""`posemb heads` and `posemb extend` on GGUF files, this tree beside an earlier one, against `import torch`.

Since a GGUF file's q and k are dequantised in NumPy and handed on as NumPy (``TensorFile.read_array``),
neither command imports torch on a GGUF file; before, every dequantised tensor was wrapped in a torch
tensor. Cases: ``heads FILE --json`` and ``extend FILE --to L --json`` on SmolLM2-135M (Q4_1, L = 32,768)
and Gemma 3 270M (Q4_K_M, L = 131,072), from ``POSEMB_REAL_MODELS`` or ~/.cache/posemb-real-models,
each run with this tree and with ``--before TREE`` (a checkout of an earlier commit, e.g. ``git worktree
add /tmp/before 72c3b67``), each right after an ``import torch`` process, in rounds; ratios are to the median
``import torch`` of the same run. The stdout of the two trees is compared too (``same_output``).

    PYTHONPATH=. .venv/bin/python benchmarks/gguf_without_torch.py --before /tmp/before --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from beside_torch import rounds_beside_import_torch, table  # noqa: E402
from extend import TARGETS  # noqa: E402
from heads import GGUF  # noqa: E402

HERE = str(Path(__file__).resolve().parents[1])
SHORT = {"smollm2_135m_q4_1": "smollm2", "gemma3_270m_q4_k_m": "gemma3"}


def _command(tree: str, args: list[str]) -> list[str]:
    """posemb from ``tree``, run outside any checkout (``python -m`` puts the working directory first on the path)."""
    return ["env", "-C", "/tmp", f"PYTHONPATH={tree}", sys.executable, "-m", "posemb_cli", *args]


def cases(before: str) -> dict[str, list[str]]:
    found = {name: str(path) for name, path in GGUF.items() if path.is_file()}
    out = {}
    for name, path in found.items():
        for command, args in (("heads", [path, "--json"]), ("extend", [path, "--to", str(TARGETS[name]), "--json"])):
            for label, tree in (("before", before), ("after", HERE)):
                out[f"{command} {SHORT[name]} {label}"] = _command(tree, [command, *args])
    return out


def same_output(commands: dict[str, list[str]]) -> dict[str, bool]:
    """Whether each case prints the same bytes with both trees (run once more, outside the timing)."""
    printed = {name: subprocess.run(command, capture_output=True, check=False).stdout
               for name, command in commands.items()}
    return {name.removesuffix(" after"): printed[name] == printed[name.replace(" after", " before")]
            for name in printed if name.endswith(" after")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, metavar="TREE", help="a checkout of the earlier commit")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every case (medians are recorded)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH as JSON")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    commands = cases(os.path.abspath(args.before))
    commit = subprocess.run(["git", "-C", args.before, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip() or None
    figures = {"taken": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "before_commit": commit,
               **rounds_beside_import_torch(commands, args.rounds), "same_output": same_output(commands)}
    figures["load_average_1min"] = [load, os.getloadavg()[0]]
    floor = figures["import_torch"]
    print(table(figures, f"GGUF without torch (import torch: {floor['wall_s']:.2f} s)"))
    print("same output:", figures["same_output"])
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
