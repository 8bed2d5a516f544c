"""`posemb order`'s report: one ``{"scheme", "max_abs_diff", ...}`` result per scheme."""

from __future__ import annotations

from posemb_cli.run.documents import ResultsReport

ORDER_SCHEMA = "posemb.order/1"

__all__ = ["ORDER_SCHEMA", "OrderReport"]


class OrderReport(ResultsReport):
    """``posemb order``: attention on a batch and on its permutation, per scheme."""

    schema = ORDER_SCHEMA
