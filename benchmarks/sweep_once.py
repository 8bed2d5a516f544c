"""`posemb sweep` over N configurations in one process against N `posemb inspect` processes."""

from __future__ import annotations

import statistics
import subprocess
import time

from startup import posemb_command

DIMS, CTXS = ("64", "128"), ("512", "1024")


def _timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def measure(rounds: int) -> dict:
    posemb = posemb_command()
    common = ["--schemes", "sinusoidal", "--device", "cpu", "--json"]
    one = [*posemb, "sweep", "--dim", ",".join(DIMS), "--ctx", ",".join(CTXS), *common]
    many = [[*posemb, "inspect", "--scheme", "sinusoidal", "--dim", d, "--ctx", c, "--device", "cpu", "--json"]
            for d in DIMS for c in CTXS]
    sweep_s, separate_s = [], []
    for _ in range(rounds):
        sweep_s.append(_timed(one))
        separate_s.append(sum(_timed(argv) for argv in many))
    return {"configurations": len(many), "rounds": rounds, "sweep_s": statistics.median(sweep_s),
            "separate_s": statistics.median(separate_s)}


def report(result: dict) -> str:
    return (f"sweep of {result['configurations']} configurations in one process: {result['sweep_s']:.2f} s; "
            f"as {result['configurations']} inspect processes: {result['separate_s']:.2f} s "
            f"({result['separate_s'] / result['sweep_s']:.1f}x), median of {result['rounds']}")
