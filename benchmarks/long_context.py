"""Long contexts: whole `posemb inspect` processes against `python -c "import torch"`, time and peak RSS.

Each measured process runs under a small Python parent that times it and reads
its peak resident set (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``: the
parent waits for that one child only). Every case alternates with an
``import torch`` process in the same rounds, so that a busy machine slows both
alike; figures are ratios to that floor (the median of the round's ratios), and
peak memory is reported above ``import torch``'s own peak. CPU seconds (user +
system, from the same ``getrusage``) are reported beside the wall time. The load
average is read before and after every process, so the record says how busy the
machine was; the commands and the machine are recorded with the figures.

Default cases, the rows of issue 29 that concern ``inspect``: ``--config`` on a
Llama-3.1-8B config.json (131,072 positions, llama3 scaling; written here), rope
at 1,048,576, 10,485,760 and 2**27 positions (dim 128, head_dim 128; above
1,048,576 positions a sample of 1,048,576 is measured), ``--ctx 100000000 --dim
64`` (defaults otherwise), the same again under a 4 GiB address-space limit
(``RLIMIT_AS``) beside another job (a process that keeps one core busy for as
long), and a learned 32768 x 4096 float32 table read from a safetensors checkpoint
(memory-mapped). Pairs that the issue compares (2**27 and 10M, 100M and 10M) are
compared round by round. ``--floors`` adds the floors (import torch and generate
rope's signal; read the checkpoint once), the learned table and the lesson's
per-offset loop; ``--curve`` the scaling curve of rope from 8k to 4M positions.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LLAMA31_8B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
              "num_key_value_heads": 8, "max_position_embeddings": 131072, "rms_norm_eps": 1e-05,
              "rope_theta": 500000.0, "vocab_size": 128256, "torch_dtype": "bfloat16",
              "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 8192, "rope_type": "llama3"}}

_MEASURE = """
import json, os, resource, subprocess, sys, time
limit = int(os.environ.pop("POSEMB_BENCH_AS_LIMIT", "0"))  # bytes of address space for the child; 0: none

def limited():
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limited)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_bytes": usage.ru_maxrss * 1024,
                  "rc": done.returncode, "stderr": done.stderr.decode()[-300:]}))
"""

# Another job beside a case: keeps one core busy until it is stopped.
_BUSY = "while True: pass"
AS_LIMIT = 4 << 30  # the address-space limit of the limited case

# The lesson's per-offset loop on the same seeded learned table, as a whole process.
_PER_OFFSET = """
import torch
from posemb_cli.core.embeddings import normal_weight
table = normal_weight({rows}, {dim}, 0.02, generator=torch.Generator().manual_seed(1)).detach()
normalised = table / torch.linalg.vector_norm(table, dim=1, keepdim=True)
print([(normalised[:-k] * normalised[k:]).sum(1).double().mean().item() for k in range(1, 9)])
"""


def run_once(command: list[str], threads: int | None = None, *, as_limit: int = 0, beside: bool = False) -> dict:
    """Wall time and peak RSS of one fresh process running ``command`` (with ``threads`` CPU threads, if given),
    under an address-space limit of ``as_limit`` bytes (0: none), beside a busy process when ``beside``."""
    env = dict(os.environ)
    if threads is not None:  # torch's and NumPy's BLAS threads alike
        env.update({name: str(threads) for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    if as_limit:
        env["POSEMB_BENCH_AS_LIMIT"] = str(as_limit)
    companion = subprocess.Popen([sys.executable, "-c", _BUSY]) if beside else None
    load = os.getloadavg()[0]
    try:
        out = subprocess.run([sys.executable, "-c", _MEASURE, *command], capture_output=True, text=True, check=True,
                             env=env)
    finally:
        if companion is not None:
            companion.kill()
            companion.wait()
    figures = json.loads(out.stdout)
    if figures["rc"] != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {figures['stderr']}")
    return {**figures, "load_before": load, "load_after": os.getloadavg()[0]}


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
from posemb_cli.core.allocator import bounded_heap
config = EmbeddingConfig(dim={dim}, head_dim=128, ctx={ctx})
scheme = build_scheme("rope", config, device=torch.device("cpu"), dtype=torch.float32)
block = max(1, (16 << 20) // (scheme.signal(0, 1).shape[1] * 4))  # the pass's 16 MiB blocks
with bounded_heap():
    for start in range(0, {ctx}, block):
        scheme.signal(start, min(start + block, {ctx}))
"""


def cases(config_path: str, checkpoint_path: str, *, long: bool = True, floors: bool = False) -> dict[str, list[str]]:
    """The commands of the cases, by name: the issue's rows, and the floors and comparisons with ``floors``."""
    rope = ("--scheme", "rope", "--dim", "128", "--head-dim", "128")
    found = {
        "config_llama31_8b": posemb("--config", config_path),
        "rope_1m": posemb(*rope, "--ctx", "1048576"),
        "checkpoint_32768x4096": posemb("--checkpoint", checkpoint_path, "--vocab", "1024"),
    }
    if long:
        found["rope_10m"] = posemb(*rope, "--ctx", "10485760")
        found["rope_2p27"] = posemb(*rope, "--ctx", str(1 << 27))  # the largest context accepted
        found["rope_100m_dim64"] = posemb("--scheme", "rope", "--ctx", "100000000", "--dim", "64")
        found[LIMITED] = found["rope_100m_dim64"]
    if floors:
        found.update({
            "learned_32768x4096": posemb("--scheme", "learned", "--dim", "4096", "--ctx", "32768", "--vocab", "1024"),
            "per_offset_32768x4096": [sys.executable, "-c", _PER_OFFSET.format(rows=32768, dim=4096)],
            "draw_floor_32768x4096": [sys.executable, "-c", _DRAW.format(rows=32768, dim=4096)],
            "read_floor_32768x4096": [sys.executable, "-c", _READ, checkpoint_path],
            "rope_signal_floor_1m": [sys.executable, "-c", _SIGNAL.format(dim=128, ctx=1048576)],
            # The config case's signal: its one head of 128 features, 8 probes, at 131,072 positions.
            "rope_signal_floor_131k": [sys.executable, "-c", _SIGNAL.format(dim=128, ctx=131072)],
        })
    return found


LIMITED = "rope_100m_dim64_4gib_beside_a_job"  # the same command under RLIMIT_AS = 4 GiB, beside a busy process
PAIRS = {"rope_2p27_over_10m": ("rope_2p27", "rope_10m"), "rope_100m_dim64_over_10m": ("rope_100m_dim64", "rope_10m")}


def curve(contexts: list[int]) -> dict[str, list[str]]:
    return {f"rope_ctx_{ctx}": posemb("--scheme", "rope", "--dim", "128", "--head-dim", "128", "--ctx", str(ctx))
            for ctx in contexts}


def machine() -> dict:
    """The machine and software of the run, as recorded beside its figures."""
    import torch

    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else None
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_bytes": memory, "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(), "python": platform.python_version(),
            "platform": platform.platform(), "niceness": os.nice(0)}


def write_inputs(folder: Path) -> tuple[str, str]:
    """The Llama-3.1-8B config.json and the 32768 x 4096 float32 checkpoint, written into ``folder``."""
    path = folder / "config.json"
    path.write_text(json.dumps(LLAMA31_8B))
    checkpoint = folder / "gpt2" / "model.safetensors"  # its own folder: no config.json beside it
    checkpoint.parent.mkdir()
    subprocess.run([sys.executable, "-c", _SAVE.format(rows=32768, dim=4096), str(checkpoint)], check=True)
    return str(path), str(checkpoint)


def measure(*, rounds: int = 1, long: bool = True, floors: bool = False, contexts: list[int] | None = None,
            only: set[str] | None = None, threads: int | None = None) -> dict:
    """Every case once per round, each right after an ``import torch`` process; medians per case."""
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    with tempfile.TemporaryDirectory() as folder:
        config_path, checkpoint = write_inputs(Path(folder))
        commands = {**cases(config_path, checkpoint, long=long, floors=floors), **curve(contexts or [])}
        commands = {name: command for name, command in commands.items() if only is None or name in only}
        runs: dict[str, list[dict]] = {name: [] for name in commands}
        floor_of: dict[str, list[dict]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, command in commands.items():
                floor_of[name].append(run_once([sys.executable, "-c", "import torch"], threads))
                limited = name == LIMITED
                runs[name].append(run_once(command, threads, as_limit=AS_LIMIT if limited else 0, beside=limited))
                last, floor = runs[name][-1], floor_of[name][-1]
                print(f"  {name}: {last['wall_s']:.1f} s (import torch {floor['wall_s']:.1f} s), "
                      f"{last['peak_bytes'] / 2**30:.2f} GiB, load {last['load_after']:.1f}", flush=True)
        shown = {name: ["python" if part == sys.executable else part.replace(folder, "$TMP") if part.startswith(folder)
                        else part for part in command] for name, command in commands.items()}
    floors_all = [run for measured in floor_of.values() for run in measured]
    torch_wall = statistics.median(run["wall_s"] for run in floors_all)
    torch_cpu = statistics.median(run["cpu_s"] for run in floors_all)
    torch_peak = max(run["peak_bytes"] for run in floors_all)
    results = {}
    for name, measured in runs.items():
        ratios = [run["wall_s"] / floor["wall_s"] for run, floor in zip(measured, floor_of[name], strict=True)]
        results[name] = {"wall_s": statistics.median(run["wall_s"] for run in measured),
                         "ratio_to_import_torch": statistics.median(ratios), "ratios": ratios,
                         "cpu_s": statistics.median(run["cpu_s"] for run in measured),
                         "cpu_ratio_to_import_torch": statistics.median(run["cpu_s"] for run in measured) / torch_cpu,
                         "peak_bytes": max(run["peak_bytes"] for run in measured),
                         "peak_above_import_torch_bytes": max(run["peak_bytes"] for run in measured) - torch_peak,
                         "walls": [run["wall_s"] for run in measured],
                         "import_torch_walls": [floor["wall_s"] for floor in floor_of[name]],
                         "load": [[run["load_before"], run["load_after"]] for run in measured],
                         "command": shown[name], "as_limit_bytes": AS_LIMIT if name == LIMITED else None,
                         "beside_a_busy_process": name == LIMITED}
    pairs = {}
    for pair, (first, second) in PAIRS.items():
        if first in runs and second in runs:
            each = [a["wall_s"] / b["wall_s"] for a, b in zip(runs[first], runs[second], strict=True)]
            pairs[pair] = {"median": statistics.median(each), "rounds": each}
    loads = [load for row in results.values() for pair in row["load"] for load in pair]
    return {"import_torch": {"wall_s": torch_wall, "cpu_s": torch_cpu, "peak_bytes": torch_peak}, "cases": results,
            "pairs": pairs, "rounds": rounds, "threads": threads, "started": started,
            "ended": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "machine": machine(),
            "load_average": {"min": min(loads), "median": statistics.median(loads), "max": max(loads)},
            "load_average_at_end": os.getloadavg()}


def report(figures: dict) -> str:
    floor = figures["import_torch"]
    lines = [f"Long contexts (import torch: {floor['wall_s']:.2f} s, {floor['cpu_s']:.2f} s CPU, "
             f"peak {floor['peak_bytes'] / 2**20:.0f} MiB; load average {figures['load_average']['min']:.1f} to "
             f"{figures['load_average']['max']:.1f}, median {figures['load_average']['median']:.1f})",
             f"{'case':<36}{'wall':>9}{'x torch':>9}{'CPU':>9}{'peak':>11}{'above torch':>13}"]
    for name, row in figures["cases"].items():
        lines.append(f"{name:<36}{row['wall_s']:>8.1f}s{row['ratio_to_import_torch']:>8.2f}x{row['cpu_s']:>8.1f}s"
                     f"{row['peak_bytes'] / 2**20:>8.0f} MiB{row['peak_above_import_torch_bytes'] / 2**20:>9.0f} MiB")
    for pair, row in figures["pairs"].items():
        lines.append(f"{pair}: {row['median']:.3f} (rounds: {', '.join(f'{r:.3f}' for r in row['rounds'])})")
    return "\n".join(lines)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-10m", action="store_true", help="leave out the runs past 1,048,576 positions")
    parser.add_argument("--floors", action="store_true", help="also the floors, the learned table and the loop")
    parser.add_argument("--curve", action="store_true", help="also the scaling curve, 8k to 4M positions")
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
    figures = measure(rounds=args.rounds, long=not args.no_10m, floors=args.floors, contexts=contexts,
                      only=set(args.only.split(",")) if args.only else None, threads=args.threads)
    figures["command"] = " ".join([os.path.basename(sys.executable), *sys.argv])
    print(report(figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
