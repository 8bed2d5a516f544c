"""`heads`: which RoPE frequencies a trained model's query and key weights use, head by head."""

from __future__ import annotations

import dataclasses

from posemb_cli.commands.heads.report import HeadsReport
from posemb_cli.core.progress import Progress
from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags
from posemb_cli.request.model import model_flags
from posemb_cli.run.models.model_source import speaking_of, with_resolved

MAX_TOP = 1000

__all__ = ["MAX_TOP", "heads_command"]


def heads_command(flags: Flags, *, progress: Progress | None = None) -> HeadsReport:
    from posemb_cli.commands.heads.measure import parse_distances, run_heads

    top = flags["top"]
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP:
        raise PosembError(f"--top must be from 1 to {MAX_TOP}, got {top}")
    distances = flags["distances"]
    if isinstance(distances, (list, tuple)):
        distances = ",".join(str(d) for d in distances)
    chosen = None if distances is None else parse_distances(distances)
    flags, named = model_flags(flags, needs_weights="heads")
    if flags["checkpoint"] is None:
        raise PosembError("heads needs MODEL (a path, a Hugging Face id or ollama:NAME) or --checkpoint PATH: a "
                          "RoPE model's weights")
    assert named is not None  # MODEL or --checkpoint
    with speaking_of(named):
        report = run_heads(named, distances=chosen, top=top, progress=progress)
    return dataclasses.replace(with_resolved(report, named), pictures=not flags.values.get("no_plot", False))
