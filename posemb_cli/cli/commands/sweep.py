"""`posemb sweep`: many configurations in one process; JSON lines or a summary table."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.lists import parse_float_list, parse_int_list
from posemb_cli.cli.output import run_progress, stdout_console, write_json
from posemb_cli.core.schemes import scheme_names
from posemb_cli.run.config import parse_scheme_list

Dims = Annotated[str, typer.Option("--dim", "-d", help="Comma list of model dimensions D.")]
Ctxs = Annotated[str, typer.Option("--ctx", "-c", help="Comma list of max context lengths L.")]
Bases = Annotated[str, typer.Option("--base", help="Comma list of frequency bases.")]


@opt.takes(opt.SHARED_FLAGS, opt.COVERAGE_FLAGS, opt.OUTPUT_FLAGS, skip=("dim", "ctx", "base", "ids"))
def sweep(
    schemes: Annotated[str, typer.Option("--schemes", help="Comma list of schemes.",
                                         rich_help_panel=opt.SHARED)] = "learned,sinusoidal",
    dim: Dims = "64",
    ctx: Ctxs = "512",
    base: Bases = "10000",
    **flags: Any,
) -> None:
    """Inspect every combination of --dim, --ctx, --base and --schemes in one process.

    Under --json, one posemb.inspect/1 object per configuration per line (JSON lines).

    \b
    Example: posemb sweep --dim 64,128 --ctx 512,2048 --schemes learned,sinusoidal --json
    """
    from posemb_cli.run.sweep import plan_sweep, run_sweep, summary_row

    names = parse_scheme_list("--schemes", schemes, scheme_names())
    flags = opt.plain(flags)
    json = flags.pop("json")
    del flags["debug"]
    points = plan_sweep(
        schemes=names, dims=parse_int_list("--dim", dim), ctxs=parse_int_list("--ctx", ctx, example="512,2048"),
        bases=parse_float_list("--base", base), **flags)
    rows = []
    with run_progress("configurations") as progress:
        for report in run_sweep(points, progress=progress):
            if json:
                from posemb_cli.run.report import to_json

                write_json(to_json(report.to_dict()))
            else:
                rows.append(summary_row(report))
    if not json:
        from posemb_cli.render.speed import sweep_table

        stdout_console().print(sweep_table(rows))
