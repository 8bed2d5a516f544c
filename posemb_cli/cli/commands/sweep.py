"""`posemb sweep`: many configurations in one process; JSON lines or a summary table."""

from __future__ import annotations

from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import emit, run_progress
from posemb_cli.commands.sweep.options import OPTIONS


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
    from posemb_cli.commands.sweep.request import sweep_request
    from posemb_cli.commands.sweep.run import run_sweep, summary_row

    chosen = opt.command_flags(context, flags)
    json = chosen["json"]
    points = sweep_request(chosen).points
    rows = []
    with run_progress("configurations") as progress:
        for report in run_sweep(points, progress=progress):
            if json:
                emit(report, True)  # one posemb.inspect/1 line per configuration, as it is measured
            else:
                rows.append(summary_row(report))
    if not json:
        emit(SweepSummary(rows), False)
