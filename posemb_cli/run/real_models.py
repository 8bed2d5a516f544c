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
from posemb_cli.sources.checkpoint import LoadedTable
from posemb_cli.sources.model_config import RopeModel

CHECKPOINT_SCHEME = "checkpoint"


def checkpoint_shape(loaded: LoadedTable, vocab: int) -> dict:
    """``dim``, ``ctx`` and ``vocab`` for make_config: the file's, the flag's vocab when the file has none."""
    return {"dim": loaded.dim, "ctx": loaded.rows, "vocab": loaded.vocab or vocab}


def _config_dict(config: EmbeddingConfig, loaded: LoadedTable) -> dict:
    return {**config.to_dict(), "checkpoint": loaded.path, "key": loaded.key,
            "position_offset": loaded.position_offset}


def _with_source(report, loaded: LoadedTable):
    return dataclasses.replace(report, extra={**report.extra, "source": loaded.source()})


def checkpoint_origins(loaded: LoadedTable) -> dict[str, str]:
    """Where the checkpoint sets the run's sizes, for a memory refusal to name the file, not --dim or --ctx."""
    where = f"--checkpoint {loaded.path}"
    return {"dim": where, "ctx": where, **({"vocab": where} if loaded.vocab else {})}


def config_origins(model: RopeModel) -> dict[str, str]:
    """Where a config.json sets the run's sizes: its fields, named for a memory refusal."""
    where = f"--config {model.path}"
    return {"dim": f"{where}: head_dim", "ctx": f"{where}: max_position_embeddings",
            **({"vocab": f"{where}: vocab_size"} if model.vocab else {})}


def inspect_checkpoint(config: EmbeddingConfig, loaded: LoadedTable, **kwargs) -> InspectReport:
    """Every diagnostic of ``inspect`` on the checkpoint's table."""
    config, (report,) = run_schemes(config, (CHECKPOINT_SCHEME,), tables={CHECKPOINT_SCHEME: loaded.table},
                                    origins=checkpoint_origins(loaded), **kwargs)
    return InspectReport(config={"scheme": CHECKPOINT_SCHEME, **_config_dict(config, loaded)},
                         result=_with_source(report, loaded))


def compare_checkpoint(
    config: EmbeddingConfig, loaded: LoadedTable, schemes: tuple[str, ...], **kwargs
) -> CompareReport:
    """The checkpoint's table first, then formula schemes of the same shape, on one batch."""
    names = (CHECKPOINT_SCHEME, *schemes)
    config, reports = run_schemes(config, names, tables={CHECKPOINT_SCHEME: loaded.table},
                                  origins=checkpoint_origins(loaded), **kwargs)
    reports[0] = _with_source(reports[0], loaded)
    return CompareReport(config={"schemes": list(names), **_config_dict(config, loaded)}, results=reports)


def rope_model_shape(model: RopeModel, vocab: int) -> dict:
    """``dim``, ``ctx`` and ``vocab`` for make_config.

    D is one head's rotary features: every head of a RoPE model rotates with the same
    frequencies, so one head shows the whole position signal at a fraction of the cost.
    """
    return {"dim": model.rotary_dim, "ctx": model.ctx, "vocab": model.vocab or vocab}


def rope_settings(config: EmbeddingConfig, model: RopeModel) -> EmbeddingConfig:
    """The settings of the ``rope`` scheme that reproduce the model's RoPE (Llama's rotate-half layout)."""
    from posemb_cli.run.position_config import with_position_settings

    s = model.scaling
    return with_position_settings(
        dataclasses.replace(config, base=model.base), schemes=("rope",), head_dim=model.rotary_dim,
        rope_layout="half", rope_scaling=s.kind, rope_factor=s.factor, original_ctx=s.original_ctx,
        beta_fast=s.beta_fast, beta_slow=s.beta_slow, low_freq_factor=s.low_freq_factor,
        high_freq_factor=s.high_freq_factor, attention_factor=s.attention_factor, heads=1)


def inspect_rope_config(config: EmbeddingConfig, model: RopeModel, **kwargs) -> InspectReport:
    """The rope scheme with the model's head size, base, context and scaling: every diagnostic, no weights."""
    from posemb_cli.run.analysis import inspect

    report = inspect(rope_settings(config, model), "rope", origins=config_origins(model), **kwargs)
    return dataclasses.replace(
        report, config={**report.config, "model_config": model.path},
        result=dataclasses.replace(report.result, extra={**report.result.extra, "source": model.source()}))
