"""`posemb sweep`: many configurations in one process; JSON lines or a summary table."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.lists import parse_choice_list, parse_float_list, parse_int_list
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.sweep.options import OPTIONS
from posemb_cli.core.schemes import scheme_names
from posemb_cli.run.config import parse_scheme_list


@opt.built_from(OPTIONS)
def sweep(context: typer.Context, **flags: Any) -> None:
    """Inspect every combination of --dim, --ctx, --base, --schemes and (rope) --rope-scaling and --rope-factor.

    Under --json, one posemb.inspect/1 object per configuration per line (JSON lines).

    \b
    Example: posemb sweep --dim 64,128 --ctx 512,2048 \\
               --schemes learned,sinusoidal --json
    Example: posemb sweep --schemes rope --ctx 4096 \\
               --rope-scaling none,linear,yarn --rope-factor 2,4
    """
    from posemb_cli.commands.sweep.report import SweepSummary
    from posemb_cli.commands.sweep.run import plan_sweep, run_sweep, summary_row
    from posemb_cli.core.settings import SCALING_KINDS

    flags = opt.plain(flags)
    names = parse_scheme_list("--schemes", flags.pop("schemes"), scheme_names())
    typed = [name for name in context.params if opt.typed(context, name)]
    json = flags.pop("json")
    del flags["debug"]
    dim, ctx, base = flags.pop("dim"), flags.pop("ctx"), flags.pop("base")
    rope_scaling, rope_factor = flags.pop("rope_scaling"), flags.pop("rope_factor")
    points = plan_sweep(
        schemes=names, dims=parse_int_list("--dim", dim), ctxs=parse_int_list("--ctx", ctx, example="512,2048"),
        bases=parse_float_list("--base", base),
        rope_scalings=parse_choice_list("--rope-scaling", rope_scaling, SCALING_KINDS, example="none,yarn"),
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
