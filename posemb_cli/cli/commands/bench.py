"""`posemb bench`: the composer's forward pass timed against a copy of its output's size."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.lists import parse_int_list
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.core.schemes import scheme_names
from posemb_cli.run.config import parse_scheme_list

Dims = Annotated[str, typer.Option("--dim", "-d", help="Comma list of model dimensions D to time.",
                                   rich_help_panel=opt.SHARED)]
BenchSeqLen = Annotated[int | None, typer.Option(
    "--seq-len", "-t", help="Sequence length T of the random batch; default: ctx.", show_default=False)]
Repeats = Annotated[int, typer.Option("--repeats", help="Timed calls per scheme and dim; the median is reported.")]
Warmup = Annotated[int, typer.Option("--warmup", help="Untimed calls first (allocator, caches).")]


@opt.takes(opt.SHARED_FLAGS, opt.OUTPUT_FLAGS, skip=("dim", "ctx", "batch", "seq_len", "max_offset", "ids"))
def bench(
    schemes: Annotated[str, typer.Option("--schemes", help="Comma list of schemes to time.",
                                         rich_help_panel=opt.SHARED)] = "learned,sinusoidal",
    dim: Dims = "1024",
    ctx: Annotated[int, typer.Option("--ctx", "-c", help="Max context length L: rows of a positional table.",
                                     rich_help_panel=opt.SHARED)] = 2048,
    batch: Annotated[int, typer.Option("--batch", "-b", help="Batch size B of the random batch.",
                                       rich_help_panel=opt.SHARED)] = 8,
    seq_len: BenchSeqLen = None,
    repeats: Repeats = 20,
    warmup: Warmup = 3,
    **flags: Any,
) -> None:
    """Time the composer's forward pass against a copy_ of its output's size (a bandwidth yardstick).

    \b
    Example: posemb bench --dim 512,1024 --seq-len 2048 --batch 8 --device cpu
    """
    from posemb_cli.commands.bench.run import bench_configs, check_repeats, run_bench

    names = parse_scheme_list("--schemes", schemes, scheme_names())
    dims = parse_int_list("--dim", dim, example="512,1024")
    check_repeats(warmup=warmup, repeats=repeats)
    flags = opt.plain(flags)
    as_json = flags.pop("json")
    del flags["debug"]
    configs = bench_configs(dims=dims, ctx=ctx, schemes=names, seq_len=seq_len, batch=batch, **flags)
    with run_progress("time forward and copy") as progress:
        report = run_bench(configs, names, warmup=warmup, repeats=repeats, progress=progress)
    emit(report, as_json)
