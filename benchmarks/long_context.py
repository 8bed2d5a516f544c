"""Long contexts: whole `posemb inspect` processes against `python -c "import torch"`, time and peak RSS.

Each measured process runs under a small Python parent that times it and reads
its peak resident set (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``: the
parent waits for that one child only). Every case alternates with an
``import torch`` process in the same rounds, so that a busy machine slows both
alike; figures are ratios to that floor, and peak memory is reported above
``import torch``'s own peak. CPU seconds (user + system, from the same
``getrusage``) are reported beside the wall time: on a shared machine, with one
thread per process (``--threads 1``), they move far less than the wall time.

Cases: ``inspect --config`` on a Llama-3.1-8B config.json (131,072 positions,
llama3 scaling; written here; one head of 128 features analysed), rope at 1,048,576 and 10,485,760 positions
(dim 128, head_dim 128), a learned 32768 x 4096 table against the lesson's
per-offset loop as a whole process and against the floor of any such process
(import torch, draw the table), the same table read from a float32
safetensors checkpoint (memory-mapped) against the floor of reading that file once,
the floor of any rope process (import torch, generate the probe signal once),
rope at the largest context accepted (2**27 positions), and the scaling curve of
rope from 8k to 10M positions. Above 1,048,576 positions rope is measured over a
sample of 1,048,576 positions (``coverage`` in its JSON); ``--full`` is not timed here.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LLAMA31_8B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
              "num_key_value_heads": 8, "max_position_embeddings": 131072, "rms_norm_eps": 1e-05,
              "rope_theta": 500000.0, "vocab_size": 128256, "torch_dtype": "bfloat16",
              "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 8192, "rope_type": "llama3"}}

_MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_bytes": usage.ru_maxrss * 1024,
                  "rc": done.returncode, "stderr": done.stderr.decode()[-300:]}))
"""

# The lesson's per-offset loop on the same seeded learned table, as a whole process.
_PER_OFFSET = """
import torch
from posemb_cli.core.embeddings import normal_weight
table = normal_weight({rows}, {dim}, 0.02, generator=torch.Generator().manual_seed(1)).detach()
normalised = table / torch.linalg.vector_norm(table, dim=1, keepdim=True)
print([(normalised[:-k] * normalised[k:]).sum(1).double().mean().item() for k in range(1, 9)])
"""


def run_once(command: list[str], threads: int | None = None) -> dict:
    """Wall time and peak RSS of one fresh process running ``command`` (with ``threads`` CPU threads, if given)."""
    env = dict(os.environ)
    if threads is not None:  # torch's and NumPy's BLAS threads alike
        env.update({name: str(threads) for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    out = subprocess.run([sys.executable, "-c", _MEASURE, *command], capture_output=True, text=True, check=True,
                         env=env)
    figures = json.loads(out.stdout)
    if figures["rc"] != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {figures['stderr']}")
    return figures


def posemb(*flags: str) -> list[str]:
    return [sys.executable, "-m", "posemb_cli", "inspect", *flags, "--json"]


# The floor of any process that analyses that table: import torch, then draw it.
_DRAW = """
import torch
from posemb_cli.core.embeddings import normal_weight
table = normal_weight({rows}, {dim}, 0.02, generator=torch.Generator().manual_seed(1)).detach()
"""

# A GPT-2-style checkpoint holding a learned 32768 x 4096 float32 table (512 MiB).
_SAVE = """
import sys, torch
from safetensors.torch import save_file
from posemb_cli.core.embeddings import normal_weight
table = normal_weight({rows}, {dim}, 0.02, generator=torch.Generator().manual_seed(1)).detach()
save_file({{"transformer.wpe.weight": table}}, sys.argv[1])
"""


# The floor of any process that analyses a checkpoint's table: import torch, map the safetensors file and
# read every value once (one float64 sum, block by block, as the finiteness check reads it).
_READ = """
import sys, torch
from safetensors import safe_open
with safe_open(sys.argv[1], framework="pt") as opened:
    table = opened.get_tensor("transformer.wpe.weight")
total = sum(float(table[start:start + 256].sum(dtype=torch.float64)) for start in range(0, table.shape[0], 256))
"""


# The floor of any process that measures rope's probe signal: import torch, then generate every
# row of it once, block by block, as the pass does (nothing measured, nothing kept).
_SIGNAL = """
import torch
from posemb_cli.core.schemes import build_scheme
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.allocator import bounded_heap
config = EmbeddingConfig(dim={dim}, head_dim=128, ctx={ctx})
scheme = build_scheme("rope", config, device=torch.device("cpu"), dtype=torch.float32)
block = max(1, (16 << 20) // (scheme.signal(0, 1).shape[1] * 4))  # the pass's 16 MiB blocks
with bounded_heap():
    for start in range(0, {ctx}, block):
        scheme.signal(start, min(start + block, {ctx}))
"""


def cases(config_path: str, checkpoint_path: str, *, long: bool) -> dict[str, list[str]]:
    rope = ("--scheme", "rope", "--dim", "128", "--head-dim", "128")
    found = {
        "config_llama31_8b": posemb("--config", config_path),
        "rope_1m": posemb(*rope, "--ctx", "1048576"),
        "learned_32768x4096": posemb("--scheme", "learned", "--dim", "4096", "--ctx", "32768", "--vocab", "1024"),
        "per_offset_32768x4096": [sys.executable, "-c", _PER_OFFSET.format(rows=32768, dim=4096)],
        "draw_floor_32768x4096": [sys.executable, "-c", _DRAW.format(rows=32768, dim=4096)],
        "checkpoint_32768x4096": posemb("--checkpoint", checkpoint_path, "--vocab", "1024"),
        "rope_signal_floor_1m": [sys.executable, "-c", _SIGNAL.format(dim=128, ctx=1048576)],
        # The config case's signal: its one head of 128 features, 8 probes, at 131,072 positions.
        "rope_signal_floor_131k": [sys.executable, "-c", _SIGNAL.format(dim=128, ctx=131072)],
    }
    found["read_floor_32768x4096"] = [sys.executable, "-c", _READ, checkpoint_path]
    if long:
        found["rope_10m"] = posemb(*rope, "--ctx", "10485760")
        found["rope_2p27"] = posemb(*rope, "--ctx", str(1 << 27))  # the largest context accepted
    return found


def curve(contexts: list[int]) -> dict[str, list[str]]:
    return {f"rope_ctx_{ctx}": posemb("--scheme", "rope", "--dim", "128", "--head-dim", "128", "--ctx", str(ctx))
            for ctx in contexts}


def measure(*, rounds: int = 1, long: bool = True, contexts: list[int] | None = None,
            only: set[str] | None = None, threads: int | None = None) -> dict:
    """Every case once per round, each right after an ``import torch`` process; medians per case."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_text(json.dumps(LLAMA31_8B))
        checkpoint = Path(folder) / "gpt2" / "model.safetensors"  # its own folder: no config.json beside it
        checkpoint.parent.mkdir()
        subprocess.run([sys.executable, "-c", _SAVE.format(rows=32768, dim=4096), str(checkpoint)], check=True)
        commands = {**cases(str(path), str(checkpoint), long=long), **curve(contexts or [])}
        commands = {name: command for name, command in commands.items() if only is None or name in only}
        runs: dict[str, list[dict]] = {name: [] for name in commands}
        floors: list[dict] = []
        for _ in range(rounds):
            for name, command in commands.items():
                floors.append(run_once([sys.executable, "-c", "import torch"], threads))
                runs[name].append(run_once(command, threads))
                print(f"  {name}: {runs[name][-1]['wall_s']:.1f} s, "
                      f"{runs[name][-1]['peak_bytes'] / 2**30:.2f} GiB", flush=True)
    torch_wall = statistics.median(run["wall_s"] for run in floors)
    torch_cpu = statistics.median(run["cpu_s"] for run in floors)
    torch_peak = max(run["peak_bytes"] for run in floors)
    results = {}
    for name, measured in runs.items():
        wall = statistics.median(run["wall_s"] for run in measured)
        cpu = statistics.median(run["cpu_s"] for run in measured)
        peak = max(run["peak_bytes"] for run in measured)
        results[name] = {"wall_s": wall, "ratio_to_import_torch": wall / torch_wall, "cpu_s": cpu,
                         "cpu_ratio_to_import_torch": cpu / torch_cpu, "peak_bytes": peak,
                         "peak_above_import_torch_bytes": peak - torch_peak}
    return {"import_torch": {"wall_s": torch_wall, "cpu_s": torch_cpu, "peak_bytes": torch_peak}, "cases": results,
            "threads": threads, "load_average_at_end": os.getloadavg()}


def report(figures: dict) -> str:
    floor = figures["import_torch"]
    lines = [f"Long contexts (import torch: {floor['wall_s']:.2f} s, {floor['cpu_s']:.2f} s CPU, "
             f"peak {floor['peak_bytes'] / 2**20:.0f} MiB)",
             f"{'case':<26}{'wall':>10}{'x torch':>9}{'CPU':>9}{'x torch':>9}{'peak':>11}{'above torch':>13}"]
    for name, row in figures["cases"].items():
        lines.append(f"{name:<26}{row['wall_s']:>9.1f}s{row['ratio_to_import_torch']:>8.1f}x{row['cpu_s']:>8.1f}s"
                     f"{row['cpu_ratio_to_import_torch']:>8.1f}x{row['peak_bytes'] / 2**20:>8.0f} MiB"
                     f"{row['peak_above_import_torch_bytes'] / 2**20:>9.0f} MiB")
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-10m", action="store_true", help="leave out the 10,485,760 and 2**27-position runs")
    parser.add_argument("--curve", action="store_true", help="also the scaling curve, 8k to 10M positions")
    parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH as JSON")
    parser.add_argument("--only", metavar="CASES", help="a comma list of case names to run (with import torch)")
    parser.add_argument("--rounds", type=int, default=1, metavar="N",
                        help="run every case N times (each after its own import torch); medians are reported")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="CPU threads of every process (torch and BLAS); on a busy machine 1 keeps waiting "
                             "threads from spinning")
    args = parser.parse_args()
    # 1,048,576 and 10,485,760 are cases of their own (rope_1m, rope_10m).
    contexts = [8192, 65536, 524288, 4194304] if args.curve else []
    figures = measure(rounds=args.rounds, long=not args.no_10m, contexts=contexts,
                      only=set(args.only.split(",")) if args.only else None, threads=args.threads)
    print(report(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
