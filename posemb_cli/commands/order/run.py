"""`order`: one attention head on a batch and on its permutation, with and without position."""

from __future__ import annotations

from posemb_cli.commands.order.report import OrderReport
from posemb_cli.core.progress import Progress
from posemb_cli.request.flags import Flags, refuse_scaling_without_factor, refuse_unread

__all__ = ["order_command"]


def order_command(flags: Flags, *, progress: Progress | None = None) -> OrderReport:
    from posemb_cli.commands.order.measure import run_order
    from posemb_cli.core.schemes import scheme_names
    from posemb_cli.request.flags import config_from_flags
    from posemb_cli.run.config import parse_scheme_list

    names = parse_scheme_list("--schemes", flags["schemes"], scheme_names())
    config = config_from_flags(flags.values, schemes=names)
    refuse_unread(flags, names)
    refuse_scaling_without_factor(flags)
    return run_order(config, names, progress=progress)
