"""`inspect`: one scheme, or a real model named by MODEL, --checkpoint or --config, in depth, run from its checked
request."""

from __future__ import annotations

from collections.abc import Callable

from posemb_cli.commands.inspect.report import InspectReport
from posemb_cli.commands.inspect.request import InspectRequest
from posemb_cli.core.progress import Progress
from posemb_cli.run.models.model_source import speaking_of, with_resolved

__all__ = ["inspect_command"]


def inspect_command(request: InspectRequest, *, progress: Progress | None = None,
                    observe: Callable | None = None) -> InspectReport:
    """Run ``inspect``; its report as the public type.

    Args:
        observe: names the heatmaps wanted per scheme (``analysis.run_schemes``); None: no pictures.
    """
    with speaking_of(request.model):
        if request.real is None:
            from posemb_cli.run.analysis import inspect

            report = inspect(request.config, request.scheme, progress=progress, observe=observe)
        else:
            from posemb_cli.run.models.real_models import inspect_real_model

            report = inspect_real_model(request.config, request.real, vocab_typed=request.vocab_typed,
                                        progress=progress, observe=observe)
    return InspectReport.of(with_resolved(report, request.model))
