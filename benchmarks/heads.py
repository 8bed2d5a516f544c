"""`posemb heads` as whole processes against `python -c "import torch"`: wall time and peak RSS.

Cases: a Llama-3-8B-shaped checkpoint written here (32 layers, 32 query heads and 8 key/value heads of
128 features, width 4096: every layer's q_proj, k_proj and input_layernorm in bfloat16 safetensors,
1.3 GB, Llama-3.1-8B's config.json beside it), and SmolLM2-135M (Q4_1) and Gemma 3 270M (Q4_K_M)
GGUF files when present (``POSEMB_REAL_MODELS``, else ~/.cache/posemb-real-models). A "read floor"
process imports torch and converts every q/k tensor of the 8B checkpoint to float64, one at a time,
nothing measured (the floor of a reading through torch; since issue 29 a safetensors checkpoint's
q and k are read without torch, straight into reused float32 buffers).

Each case runs right after an ``import torch`` process, in rounds (``long_context.run_once``: a
small parent times one child and reads its peak RSS); ratios are to the median ``import torch``,
peaks above the largest ``import torch`` peak. Targets: the 8B shape within 2.5x ``import torch``
(issue 29; 3x in issue 19) and under 1 GiB above it; the GGUF files within 2x.

    PYTHONPATH=. .venv/bin/python benchmarks/heads.py --json out.json
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from beside_torch import main, rounds_beside_import_torch, table  # noqa: E402
from long_context import LLAMA31_8B  # noqa: E402

REAL = Path(os.environ.get("POSEMB_REAL_MODELS", os.path.expanduser("~/.cache/posemb-real-models")))
GGUF = {"smollm2_135m_q4_1": REAL / "SmolLM2-135M-Instruct.Q4_1.gguf",
        "gemma3_270m_q4_k_m": REAL / "gemma-3-270m-q4_k_m.gguf"}

# The 8B-shaped checkpoint: N(0, 0.02) projections and norm gains near 1, in bfloat16, one layer drawn at a time.
_WRITE = """
import sys, torch
from safetensors.torch import save_file
generator = torch.Generator().manual_seed(0)
tensors = {}
for layer in range(32):
    prefix = f"model.layers.{layer}."
    for name, rows in (("self_attn.q_proj.weight", 4096), ("self_attn.k_proj.weight", 1024)):
        tensors[prefix + name] = (torch.randn(rows, 4096, generator=generator) * 0.02).to(torch.bfloat16)
    tensors[prefix + "input_layernorm.weight"] = (1 + 0.1 * torch.randn(4096, generator=generator)).to(torch.bfloat16)
save_file(tensors, sys.argv[1])
"""

_READ_FLOOR = """
import sys, torch
from safetensors import safe_open
with safe_open(sys.argv[1], framework="pt") as handle:
    for name in handle.keys():
        if "proj" in name:
            handle.get_tensor(name).double()
"""


def heads(path: str) -> list[str]:
    return [sys.executable, "-m", "posemb_cli", "heads", "--checkpoint", path, "--json"]


def measure(*, rounds: int = 3) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / "llama3_8b_shape"
        model.mkdir()
        (model / "config.json").write_text(json.dumps(LLAMA31_8B))
        weights = model / "model.safetensors"
        subprocess.run([sys.executable, "-c", _WRITE, str(weights)], check=True)
        commands = {"llama3_8b_shape_bf16": heads(str(model)),
                    "read_floor_8b_float64": [sys.executable, "-c", _READ_FLOOR, str(weights)]}
        commands.update({name: heads(str(path)) for name, path in GGUF.items() if path.is_file()})
        figures = rounds_beside_import_torch(commands, rounds)
        size = weights.stat().st_size
    return {**figures, "checkpoint_bytes": size}


def report(figures: dict) -> str:
    floor = figures["import_torch"]
    return table(figures, f"posemb heads (import torch: {floor['wall_s']:.2f} s, "
                          f"peak {floor['peak_bytes'] / 2**20:.0f} MiB; "
                          f"8B-shaped checkpoint {figures['checkpoint_bytes'] / 2**30:.2f} GiB)")


if __name__ == "__main__":
    main(__doc__, measure, report, rounds=3, rounds_help="rounds of every case (medians are recorded)")
