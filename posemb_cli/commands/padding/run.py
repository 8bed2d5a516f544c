"""`padding`: one head on a batch and on its left-padded copy; a real model's own signal when one is named; run
from its checked request."""

from __future__ import annotations

from posemb_cli.commands.padding.report import PaddingReport
from posemb_cli.commands.padding.request import PaddingRequest
from posemb_cli.core.progress import Progress
from posemb_cli.run.models.model_source import speaking_of, with_resolved

__all__ = ["padding_command"]


def padding_command(request: PaddingRequest, *, progress: Progress | None = None) -> PaddingReport:
    with speaking_of(request.model):
        if request.real is None:
            from posemb_cli.commands.padding.measure import run_padding

            report = run_padding(request.config, request.schemes, request.pad, progress=progress)
        else:
            from posemb_cli.commands.padding.real_model import padding_real_model

            report = padding_real_model(request.config, request.real, request.pad, progress=progress)
    return with_resolved(report, request.model)
