"""`posemb sweep`: many configurations in one process; JSON lines or a summary table."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.lists import parse_choice_list, parse_float_list, parse_int_list
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.core.schemes import scheme_names
from posemb_cli.run.config import parse_scheme_list

Dims = Annotated[str, typer.Option("--dim", "-d", help="Comma list of model dimensions D.")]
Ctxs = Annotated[str, typer.Option("--ctx", "-c", help="Comma list of max context lengths L.")]
Bases = Annotated[str, typer.Option("--base", help="Comma list of frequency bases.")]
Scalings = Annotated[str, typer.Option(
    "--rope-scaling", metavar="KIND,...", rich_help_panel=opt.POSITION,
    help="Comma list of RoPE context extensions (none, linear, ntk, dynamic, yarn, llama3); rope runs under each.")]
Factors = Annotated[str | None, typer.Option(
    "--rope-factor", metavar="F,...", show_default=False, rich_help_panel=opt.POSITION,
    help="Comma list of extension factors, 1 or more; each scaling but none runs with each. Required with "
         "--rope-scaling.")]
_NOT_SWEPT = ("head_dim", "rope_layout", "rope_scaling", "rope_factor", "heads")  # sweep keeps their defaults


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.COVERAGE_FLAGS, opt.OUTPUT_FLAGS,
           skip=("dim", "ctx", "base", "ids", *_NOT_SWEPT))
def sweep(
    context: typer.Context,
    schemes: Annotated[str, typer.Option("--schemes", help="Comma list of schemes.",
                                         rich_help_panel=opt.SHARED)] = "learned,sinusoidal",
    dim: Dims = "64",
    ctx: Ctxs = "512",
    base: Bases = "10000",
    rope_scaling: Scalings = "none",
    rope_factor: Factors = None,
    **flags: Any,
) -> None:
    """Inspect every combination of --dim, --ctx, --base, --schemes and (rope) --rope-scaling and --rope-factor.

    Under --json, one posemb.inspect/1 object per configuration per line (JSON lines).

    \b
    Example: posemb sweep --dim 64,128 --ctx 512,2048 --schemes learned,sinusoidal --json
    Example: posemb sweep --schemes rope --ctx 4096 --rope-scaling none,linear,yarn --rope-factor 2,4
    """
    from posemb_cli.commands.sweep.report import SweepSummary
    from posemb_cli.commands.sweep.run import plan_sweep, run_sweep, summary_row
    from posemb_cli.core.settings import SCALING_KINDS

    names = parse_scheme_list("--schemes", schemes, scheme_names())
    typed = [name for name in context.params if opt.typed(context, name)]
    flags = opt.plain(flags)
    json = flags.pop("json")
    del flags["debug"]
    points = plan_sweep(
        schemes=names, dims=parse_int_list("--dim", dim), ctxs=parse_int_list("--ctx", ctx, example="512,2048"),
        bases=parse_float_list("--base", base), rope_scalings=parse_choice_list("--rope-scaling", rope_scaling,
                                                                                SCALING_KINDS, example="none,yarn"),
        rope_factors=(1.0,) if rope_factor is None else parse_float_list("--rope-factor", rope_factor, example="2,4"),
        typed=typed, **flags)
    rows = []
    with run_progress("configurations") as progress:
        for report in run_sweep(points, progress=progress):
            if json:
                emit(report, True)  # one posemb.inspect/1 line per configuration, as it is measured
            else:
                rows.append(summary_row(report))
    if not json:
        emit(SweepSummary(rows), False)
