"""`compare`: schemes side by side on one batch (a checkpoint's table first when one is named), or real models
side by side (``compare MODEL MODEL ...``, ``commands.compare.models``), run from its checked request."""

from __future__ import annotations

from collections.abc import Callable

from posemb_cli.commands.compare.report import CompareReport
from posemb_cli.commands.compare.request import CompareRequest
from posemb_cli.core.progress import Progress

__all__ = ["compare_command"]


def compare_command(request: CompareRequest, *, progress: Progress | None = None,
                    observe: Callable | None = None) -> CompareReport:
    """Run ``compare``; its report as the public type.

    Args:
        observe: names the heatmaps wanted per scheme (``analysis.run_schemes``); None: no pictures.
    """
    if request.columns:
        from posemb_cli.commands.compare.models import compare_models

        return CompareReport.of(compare_models(request, progress=progress, observe=observe))
    assert request.config is not None  # the request of schemes built from flags
    if request.table is None:
        from posemb_cli.run.analysis import compare

        return CompareReport.of(compare(request.config, request.schemes, progress=progress, observe=observe))
    from posemb_cli.run.models.model_source import speaking_of
    from posemb_cli.run.models.real_models import compare_checkpoint

    assert request.table.loaded is not None  # a checkpoint without a position table is refused
    with speaking_of(request.checkpoint):
        return CompareReport.of(compare_checkpoint(request.config, request.table.loaded, request.schemes,
                                                   progress=progress, observe=observe, real=request.table,
                                                   vocab_typed=request.vocab_typed))
