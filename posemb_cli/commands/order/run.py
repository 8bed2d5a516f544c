"""`order`: one attention head on a batch and on its permutation, with and without position, run from its checked
request."""

from __future__ import annotations

from posemb_cli.commands.order.report import OrderReport
from posemb_cli.commands.order.request import OrderRequest
from posemb_cli.core.progress import Progress

__all__ = ["order_command"]


def order_command(request: OrderRequest, *, progress: Progress | None = None) -> OrderReport:
    from posemb_cli.commands.order.measure import run_order

    return run_order(request.config, request.schemes, progress=progress)
