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
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from beside_torch import main, rounds_beside_import_torch, table  # noqa: E402
from heads import GGUF  # noqa: E402
from long_context import LLAMA31_8B  # noqa: E402

TARGETS = {"smollm2_135m_q4_1": 32768, "gemma3_270m_q4_k_m": 131072}


def extend(path: str, to: int) -> list[str]:
    return [sys.executable, "-m", "posemb_cli", "extend", path, "--to", str(to), "--json"]


def measure(*, rounds: int = 3) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.json"
        config.write_text(json.dumps(LLAMA31_8B))
        commands = {name: extend(str(path), TARGETS[name]) for name, path in GGUF.items() if path.is_file()}
        commands["llama31_8b_config"] = extend(str(config), 524288)
        return rounds_beside_import_torch(commands, rounds)


def report(figures: dict) -> str:
    floor = figures["import_torch"]
    return table(figures, f"posemb extend (import torch: {floor['wall_s']:.2f} s, "
                          f"peak {floor['peak_bytes'] / 2**20:.0f} MiB)")


if __name__ == "__main__":
    main(__doc__, measure, report, rounds=3, rounds_help="rounds of every case (medians are recorded)")
