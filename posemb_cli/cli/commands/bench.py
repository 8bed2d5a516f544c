"""`posemb bench`: the composer's forward pass timed against a copy of its output's size."""

from __future__ import annotations

from typing import Any

from posemb_cli.cli import options as opt
from posemb_cli.cli.lists import parse_int_list
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.bench.options import OPTIONS
from posemb_cli.core.schemes import scheme_names
from posemb_cli.run.config import parse_scheme_list


@opt.built_from(OPTIONS)
def bench(**flags: Any) -> None:
    """Time the composer's forward pass against a copy_ of its output's size (a bandwidth yardstick).

    \b
    Example: posemb bench --dim 512,1024 --seq-len 2048 --batch 8 --device cpu
    """
    from posemb_cli.commands.bench.run import bench_configs, check_repeats, run_bench

    flags = opt.plain(flags)
    names = parse_scheme_list("--schemes", flags.pop("schemes"), scheme_names())
    dims = parse_int_list("--dim", flags.pop("dim"), example="512,1024")
    warmup, repeats = flags.pop("warmup"), flags.pop("repeats")
    check_repeats(warmup=warmup, repeats=repeats)
    as_json = flags.pop("json")
    del flags["debug"]
    configs = bench_configs(dims=dims, schemes=names, **flags)
    with run_progress("time forward and copy") as progress:
        report = run_bench(configs, names, warmup=warmup, repeats=repeats, progress=progress)
    emit(report, as_json)
