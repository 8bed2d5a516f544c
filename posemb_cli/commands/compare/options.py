"""`posemb compare`'s options: schemes, or real MODELs under scalings, then the shared groups."""

from __future__ import annotations

from posemb_cli.request import groups
from posemb_cli.request.option import Option

OPTIONS = (
    Option("models", (), list[str] | None, None, argument=True, metavar="MODEL", show_default=False,
           help="Real models side by side, each as posemb inspect reads it (one column per RoPE set): "
                f"{groups.MODEL_HELP[0].lower()}{groups.MODEL_HELP[1:]}"),
    Option("schemes", ("--schemes",), str, "learned,sinusoidal", panel=groups.SHARED_PANEL, items=str,
           help="Comma list of schemes to compare."),
    Option("scalings", ("--scalings",), str | None, None, items=str, metavar="NAME:FACTOR,...", show_default=False,
           panel=groups.REAL_PANEL,
           help="Each MODEL under each RoPE scaling: none, or linear, ntk, dynamic, yarn, llama3, longrope with its "
                "factor (yarn:4), as posemb extend writes their rope_parameters; the factor is relative to the length "
                "the model's unscaled frequencies were trained at."),
    *groups.SHARED, *groups.POSITION, *groups.CHECKPOINT, *groups.PLOT, *groups.COVERAGE, *groups.OUTPUT,
)
