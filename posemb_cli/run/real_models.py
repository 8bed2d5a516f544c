"""Analyse a real model's position table: the checkpoint's rows go where a built table would.

The table's shape sets D and L, the token table (when the file has one) sets V,
so the shape and parameter figures describe the real model; formula schemes
compared beside it are built with the same shape.
"""

from __future__ import annotations

import dataclasses

from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.analysis import run_schemes
from posemb_cli.run.report import CompareReport, InspectReport
from posemb_cli.run.rope_models import (  # noqa: F401  (the config path)
    inspect_rope_config,
    rope_model_shape,
    rope_settings,
)
from posemb_cli.sources.checkpoint import LoadedTable

CHECKPOINT_SCHEME = "checkpoint"


def checkpoint_shape(loaded: LoadedTable, vocab: int) -> dict:
    """``dim``, ``ctx`` and ``vocab`` for make_config: the file's, the flag's vocab when the file has none."""
    return {"dim": loaded.dim, "ctx": loaded.rows, "vocab": loaded.vocab or vocab}


def _config_dict(config: EmbeddingConfig, loaded: LoadedTable) -> dict:
    return {**config.to_dict(), "checkpoint": loaded.path, "key": loaded.key,
            "position_offset": loaded.position_offset}


def _with_source(report, loaded: LoadedTable):
    return dataclasses.replace(report, extra={**report.extra, "source": loaded.source()})


def inspect_checkpoint(config: EmbeddingConfig, loaded: LoadedTable, **kwargs) -> InspectReport:
    """Every diagnostic of ``inspect`` on the checkpoint's table."""
    config, (report,) = run_schemes(config, (CHECKPOINT_SCHEME,), tables={CHECKPOINT_SCHEME: loaded.table}, **kwargs)
    return InspectReport(config={"scheme": CHECKPOINT_SCHEME, **_config_dict(config, loaded)},
                         result=_with_source(report, loaded))


def compare_checkpoint(
    config: EmbeddingConfig, loaded: LoadedTable, schemes: tuple[str, ...], **kwargs
) -> CompareReport:
    """The checkpoint's table first, then formula schemes of the same shape, on one batch."""
    names = (CHECKPOINT_SCHEME, *schemes)
    config, reports = run_schemes(config, names, tables={CHECKPOINT_SCHEME: loaded.table}, **kwargs)
    reports[0] = _with_source(reports[0], loaded)
    return CompareReport(config={"schemes": list(names), **_config_dict(config, loaded)}, results=reports)
