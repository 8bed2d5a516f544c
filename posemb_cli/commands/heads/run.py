"""`heads`: which RoPE frequencies a trained model's query and key weights use, head by head, run from its checked
request."""

from __future__ import annotations

import dataclasses

from posemb_cli.commands.heads.report import HeadsReport
from posemb_cli.commands.heads.request import HeadsRequest
from posemb_cli.core.progress import Progress
from posemb_cli.run.models.model_source import speaking_of, with_resolved

__all__ = ["heads_command"]


def heads_command(request: HeadsRequest, *, progress: Progress | None = None) -> HeadsReport:
    from posemb_cli.commands.heads.measure import run_heads

    distances = None if request.distances is None else list(request.distances)
    with speaking_of(request.model):
        report = run_heads(request.model, distances=distances, top=request.top, progress=progress)
    return dataclasses.replace(with_resolved(report, request.model), pictures=request.pictures)
