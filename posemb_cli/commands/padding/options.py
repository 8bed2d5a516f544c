"""`posemb padding`'s options: schemes or a real MODEL, the pad, then the shared groups."""

from __future__ import annotations

from posemb_cli.request import groups
from posemb_cli.request.option import Option, without

OPTIONS = (
    groups.MODEL,
    Option("schemes", ("--schemes",), str, "none,learned,sinusoidal,rope,alibi", panel=groups.SHARED_PANEL, items=str,
           help="Comma list of schemes to compare; none is NoPE."),
    Option("pad", ("--pad",), int, 4, panel=groups.SHARED_PANEL,
           help="Masked pad tokens put in front of every sequence."),
    *without(groups.SHARED, "max_offset"), *groups.POSITION, *groups.CHECKPOINT, *groups.CONFIG, *groups.OUTPUT,
)
