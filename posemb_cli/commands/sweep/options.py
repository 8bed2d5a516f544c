"""`posemb sweep`'s options: comma lists of what varies, then the shared settings every configuration takes."""

from __future__ import annotations

from posemb_cli.request import groups
from posemb_cli.request.option import Option, without

# sweep varies these itself, or keeps their defaults
_NOT_SHARED = ("dim", "ctx", "base", "ids", "head_dim", "rope_layout", "rope_scaling", "rope_factor", "heads")

OPTIONS = (
    Option("schemes", ("--schemes",), str, "learned,sinusoidal", panel=groups.SHARED_PANEL, items=str,
           help="Comma list of schemes."),
    Option("dim", ("--dim", "-d"), str, "64", items=int, help="Comma list of model dimensions D."),
    Option("ctx", ("--ctx", "-c"), str, "512", items=int, help="Comma list of max context lengths L."),
    Option("base", ("--base",), str, "10000", items=float, help="Comma list of frequency bases."),
    Option("rope_scaling", ("--rope-scaling",), str, "none", items=str, metavar="KIND,...", panel=groups.POSITION_PANEL,
           help="Comma list of RoPE context extensions (none, linear, ntk, dynamic, yarn, llama3); rope runs under "
                "each."),
    Option("rope_factor", ("--rope-factor",), str | None, None, items=float, metavar="F,...", show_default=False,
           panel=groups.POSITION_PANEL,
           help="Comma list of extension factors, 1 or more; each scaling but none runs with each. Required with "
                "--rope-scaling."),
    *without(groups.SHARED, *_NOT_SHARED), *without(groups.POSITION, *_NOT_SHARED), *groups.COVERAGE,
    *groups.OUTPUT,
)
