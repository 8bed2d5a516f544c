"""`posemb bench`: the composer's forward pass timed against a copy of its output's size."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.bench.options import OPTIONS


@opt.built_from(OPTIONS)
def bench(context: typer.Context, **flags: Any) -> None:
    """Time the composer's forward pass against a copy_ of its output's size (a bandwidth yardstick).

    \b
    Example: posemb bench --dim 512,1024 --seq-len 2048 --batch 8 --device cpu
    """
    from posemb_cli.commands.bench.request import bench_request
    from posemb_cli.commands.bench.run import run_bench

    chosen = opt.command_flags(context, flags)
    request = bench_request(chosen)
    with run_progress("time forward and copy") as progress:
        report = run_bench(request.configs, request.schemes, warmup=request.warmup, repeats=request.repeats,
                           progress=progress)
    emit(report, chosen["json"])
