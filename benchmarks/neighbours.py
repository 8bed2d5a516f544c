"""Neighbour similarity at scale: blockwise (the project's) against the per-offset method.

Memory: each method runs alone in a fresh interpreter that builds the (L, D)
table, resets its peak-RSS mark (``/proc/self/clear_refs``), runs the method and
reports the growth of VmHWM over the RSS it had with the table in place: the
method's peak extra memory, with no tracer slowing it down. One call on a small
slice first loads the kernels and thread pools, which are not the method's memory.

Time: one more interpreter runs every method once to warm up, then in
interleaved rounds on the same table, so that a busy machine slows all alike.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

METHODS = ("blockwise", "first_commit", "per_offset")


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _per_offset(table, max_offset: int) -> list[float]:
    """Normalise the table, then (n[:-k] * n[k:]).sum(1) for each k: about two tables of temporaries."""
    import torch

    normalised = table / torch.linalg.vector_norm(table, dim=1, keepdim=True)
    return [(normalised[:-k] * normalised[k:]).sum(1).double().mean().item() for k in range(1, max_offset + 1)]


def _first_commit_blockwise(table, max_offset: int, block_rows: int = 256) -> list[float]:
    """The first commit's blockwise loop, kept here as the 'before': one (b, b + K - 1) product per
    256-row block, then the K diagonals gathered from it."""
    import torch
    from posemb_cli.measures.neighbours import row_norms

    rows = table.shape[0]
    norms = row_norms(table)
    offsets = torch.arange(1, max_offset + 1)
    total = torch.zeros(max_offset, dtype=torch.float64)
    for start in range(0, rows, block_rows):
        stop = min(start + block_rows, rows)
        window = table[start + 1:min(stop + max_offset, rows)]
        gram = (table[start:stop] @ window.T).to(torch.float64)  # (b, w)
        column = torch.arange(stop - start)[:, None] + offsets[None, :] - 1  # (b, K)
        valid = column < window.shape[0]
        dots = gram.gather(1, column.clamp(max=max(window.shape[0] - 1, 0)))
        partner = (start + column + 1).clamp(max=rows - 1)
        cosine = dots / (norms[start:stop, None] * norms[partner])
        total += torch.where(valid, cosine, 0.0).sum(0)
    return [(total[k - 1] / (rows - k)).item() for k in range(1, max_offset + 1)]


def _methods(max_offset: int) -> dict:
    from posemb_cli.measures.neighbours import neighbour_similarity

    return {
        "blockwise": lambda t: [row["mean"] for row in neighbour_similarity(t, max_offset)],
        "first_commit": lambda t: _first_commit_blockwise(t, max_offset),
        "per_offset": lambda t: _per_offset(t, max_offset),
    }


def _table(rows: int, dim: int):
    import torch

    return torch.randn(rows, dim, generator=torch.Generator().manual_seed(0))  # (L, D) float32


def child_memory(method: str, rows: int, dim: int, max_offset: int) -> dict:
    """Peak extra memory of one method, alone in this fresh process."""
    table = _table(rows, dim)
    run = _methods(max_offset)[method]
    run(table[: 2 * max_offset + 2].clone())  # load kernels, thread pools; tiny temporaries
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # reset VmHWM to the current RSS
    except OSError:
        pass
    base = _status_kib("VmRSS")
    means = run(table)
    return {"extra_bytes": (_status_kib("VmHWM") - base) * 1024, "table_bytes": table.numel() * 4, "means": means}


def child_time(rows: int, dim: int, max_offset: int, repeats: int) -> dict:
    """Seconds of every method, one warm-up round, then ``repeats`` interleaved rounds on one table."""
    table = _table(rows, dim)
    methods = _methods(max_offset)
    for run in methods.values():
        run(table)
    seconds = {name: [] for name in methods}
    for _ in range(repeats):
        for name, run in methods.items():
            start = time.perf_counter()
            run(table)
            seconds[name].append(time.perf_counter() - start)
    return seconds


def _child(*args: str) -> dict:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(*, rows: int, dim: int, max_offset: int, repeats: int) -> dict:
    shape = [str(rows), str(dim), str(max_offset)]
    memory = {method: _child("memory", method, *shape) for method in METHODS}
    seconds = _child("time", *shape, str(repeats))
    table_bytes = memory["per_offset"]["table_bytes"]
    reference = memory["per_offset"]["means"]
    result = {"rows": rows, "dim": dim, "max_offset": max_offset, "repeats": repeats, "table_bytes": table_bytes}
    for method in METHODS:
        result[method] = {
            "median_s": statistics.median(seconds[method]),
            "seconds": seconds[method],
            "peak_extra_bytes": memory[method]["extra_bytes"],
            "max_abs_diff_vs_per_offset": max(abs(a - b) for a, b in zip(memory[method]["means"], reference,
                                                                          strict=True)),
        }
    result["speedup"] = result["per_offset"]["median_s"] / result["blockwise"]["median_s"]
    result["speedup_first_commit"] = result["per_offset"]["median_s"] / result["first_commit"]["median_s"]
    return result


def report(result: dict) -> str:
    mib = 1 << 20
    table = result["table_bytes"]
    lines = [f"neighbour similarity, {result['rows']} x {result['dim']} float32 table ({table / mib:.0f} MiB), "
             f"K={result['max_offset']}, median of {result['repeats']} interleaved rounds:"]
    for method in METHODS:
        row = result[method]
        lines.append(f"  {method:<14} {row['median_s']:7.3f} s   peak extra {row['peak_extra_bytes'] / mib:7.1f} MiB "
                     f"({row['peak_extra_bytes'] / table:.3f} of the table)   "
                     f"max |mean diff| vs per-offset {row['max_abs_diff_vs_per_offset']:.1e}")
    block = result["blockwise"]
    if (result["rows"], result["dim"]) != (32768, 4096):
        lines.append("  (the targets are judged on the 32768 x 4096 table of the full run only)")
        return "\n".join(lines)
    lines.append(f"  speed-up {result['speedup']:.1f}x (first commit's blockwise: "
                 f"{result['speedup_first_commit']:.1f}x); "
                 f"target >= 5x: {'met' if result['speedup'] >= 5 else 'NOT met'}; peak extra <= 1/4 table: "
                 f"{'met' if block['peak_extra_bytes'] <= table / 4 else 'NOT met'}")
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1] == "memory":
        print(json.dumps(child_memory(sys.argv[2], *map(int, sys.argv[3:6]))))
    else:
        print(json.dumps(child_time(*map(int, sys.argv[2:6]))))
