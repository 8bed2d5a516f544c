"""`extend`: which RoPE scaling, which factor, for a model at a target length, run from its checked request."""

from __future__ import annotations

import dataclasses

from posemb_cli.commands.extend.report import ExtendReport
from posemb_cli.commands.extend.request import ExtendRequest
from posemb_cli.core.progress import Progress

__all__ = ["extend_command"]


def extend_command(request: ExtendRequest, *, progress: Progress | None = None) -> ExtendReport:
    """Run ``extend``: the prediction, with ``--text``/``--ids`` the measurement beside it, and the written config."""
    report = _extend(request, progress=progress)
    if request.write_config is not None:
        from posemb_cli.commands.extend.write_config import write_config

        report = dataclasses.replace(report, written_config=write_config(report, request.write_config))
    return dataclasses.replace(report, pictures=request.pictures)


def _extend(request: ExtendRequest, *, progress: Progress | None = None) -> ExtendReport:
    from posemb_cli.commands.extend.predict import run_extend
    from posemb_cli.errors import option
    from posemb_cli.run.models.model_source import speaking_of

    def predicted() -> ExtendReport:
        return run_extend(request.model, to=request.to, scalings=request.scalings, factor=request.factor,
                          top=request.top, progress=progress, fine_tune=request.fine_tune)

    with speaking_of(request.model):  # a refusal about the model's files names it as typed
        if not request.measures:
            return predicted()
        from posemb_cli.commands.extend.measure import measure_candidates, open_measured

        assert request.runtime is not None  # a measurement's request names its runtime
        model = open_measured(request.model, what=option("text") if request.text else option("ids"),
                              device=request.device, dtype=request.dtype, runtime=request.runtime)
        return measure_candidates(model, predicted(), text=request.text, ids=request.ids, progress=progress,
                                  save_ids=request.save_ids)
