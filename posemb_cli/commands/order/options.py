"""`posemb order`'s options: the schemes, then the shared groups."""

from __future__ import annotations

from posemb_cli.request import groups
from posemb_cli.request.option import Option

OPTIONS = (
    Option("schemes", ("--schemes",), str, "none,learned,sinusoidal,rope,alibi", panel=groups.SHARED_PANEL, items=str,
           help="Comma list of schemes to compare; none is NoPE."),
    *groups.SHARED, *groups.POSITION, *groups.OUTPUT,
)
