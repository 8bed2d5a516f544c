"""`posemb padding` on a real model: its own position signal under left padding, one run per RoPE set.

The model's reading decides what runs: each RoPE set with its own frequencies and
head size (``rope_models``), ALiBi with the model's slopes, a learned (or stored
sinusoidal) table read from the checkpoint, a fixed sinusoidal table from its
formula. A learned relative-attention bias (T5) is refused, naming its kind.
"""

from __future__ import annotations

import dataclasses

from posemb_cli.commands.padding.measure import run_padding
from posemb_cli.commands.padding.report import PaddingReport
from posemb_cli.core.progress import Progress
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.run.models.real_sources import RealModel

__all__ = ["padding_real_model"]


def _rope(config: EmbeddingConfig, real: RealModel, pad: int, progress: Progress | None) -> PaddingReport:
    from posemb_cli.run.models.rope_models import config_origins, model_rope_builder, rope_settings

    assert real.rope is not None
    reports = []
    for one in real.rope.layer_types():  # the set that attends farthest first; a sliding set within its window
        attends = one.attends
        report = run_padding(rope_settings(config, one), ("rope",), pad, progress=progress,
                             builders={"rope": model_rope_builder(one)},
                             origins=config_origins(one, real.said(one.path, flag="--config")),
                             window=attends.distance if attends.windowed else None)
        rope_set = one.layer_type or "shared"
        reports.append(dataclasses.replace(report, results=[{**row, "rope_set": rope_set} for row in report.results]))
    first = reports[0]
    return PaddingReport(config=first.config, results=[row for report in reports for row in report.results])


def padding_real_model(config: EmbeddingConfig, real: RealModel, pad: int, *,
                       progress: Progress | None = None) -> PaddingReport:
    """Left padding on the model's own position signal; ``config`` holds the model's settled sizes."""
    from posemb_cli.run.config import with_position_settings
    from posemb_cli.run.models.real_models import CHECKPOINT_SCHEME, checkpoint_origins

    if real.rope is not None:
        report = _rope(config, real, pad, progress)
    elif real.loaded is not None:
        where = real.said(real.loaded.path, flag="--checkpoint")
        report = run_padding(config, (CHECKPOINT_SCHEME,), pad, progress=progress,
                             tables={CHECKPOINT_SCHEME: real.loaded.table},
                             origins=checkpoint_origins(real.loaded, where))
    elif real.formula is not None:
        formula = real.formula
        settings = {"heads": formula.heads} if formula.scheme == "alibi" else {}
        report = run_padding(with_position_settings(config, schemes=(formula.scheme,), **settings),
                             (formula.scheme,), pad, progress=progress)
    else:
        raise PosembError(f"{real.said()}: this model uses {real.kind.label} ({real.kind.decided_by}); "
                          "padding runs on position tables, RoPE and ALiBi")
    source = real.source()
    model = {} if real.reading is None else {"model": real.reading.model_dict()}
    named = {real.model.key: real.path}
    return PaddingReport(config={**report.config, **named}, results=report.results, source=source, **model)
