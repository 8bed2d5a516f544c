"""Analyse a real model's learned position parts: the checkpoint's rows go where a built table would.

The table's shape sets D and L, the token table (when the file has one) sets V,
so the shape and parameter figures describe the real model; formula schemes
compared beside it are built with the same shape.

T5's relative-attention bias (``inspect_relative_bias``): the model's (N, H) table is run as the
``relative_bias`` scheme on the usual batch, so the relative check and the scorecard read the real bias.
What does not apply is said, not invented: there is no additive table (``table`` null), the neighbour
similarity of position vectors is not defined for a bias per distance (null), and the position part of one
forward pass is the (H, T, T) bias added to the scores, from N x H parameters.
"""

from __future__ import annotations

import dataclasses

from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.analysis import inspect, run_schemes
from posemb_cli.run.models.rope_models import (  # noqa: F401  (the config path)
    inspect_rope_config,
    rope_model_shape,
    rope_settings,
)
from posemb_cli.run.report import CompareReport, InspectReport, NotedSource, SchemeReport, SourceDescription
from posemb_cli.sources.weights.position_table import LoadedTable
from posemb_cli.sources.weights.relative_bias import RelativeBiasTable

CHECKPOINT_SCHEME = "checkpoint"


def checkpoint_shape(loaded: LoadedTable, vocab: int) -> dict:
    """``dim``, ``ctx`` and ``vocab`` for make_config: the file's, the flag's vocab when the file has none."""
    return {"dim": loaded.dim, "ctx": loaded.rows, "vocab": loaded.vocab or vocab}


def _config_dict(config: EmbeddingConfig, loaded: LoadedTable) -> dict:
    return {**config.to_dict(), "checkpoint": loaded.path, "key": loaded.key,
            "position_offset": loaded.position_offset}


def _with_source(report: SchemeReport, loaded: LoadedTable) -> SchemeReport:
    return dataclasses.replace(report, source=loaded)


def checkpoint_origins(loaded: LoadedTable, where: str | None = None) -> dict[str, str]:
    """Where the checkpoint sets the run's sizes, for a memory refusal to name the file, not --dim or --ctx.

    Args:
        where: the checkpoint as the user named it (default ``--checkpoint PATH``).
    """
    where = where or f"--checkpoint {loaded.path}"
    return {"dim": where, "ctx": where, **({"vocab": where} if loaded.vocab else {})}


def inspect_checkpoint(config: EmbeddingConfig, loaded: LoadedTable, *, where: str | None = None,
                       **kwargs) -> InspectReport:
    """Every diagnostic of ``inspect`` on the checkpoint's table (``where``: the file as the user named it)."""
    config, (report,) = run_schemes(config, (CHECKPOINT_SCHEME,), tables={CHECKPOINT_SCHEME: loaded.table},
                                    origins=checkpoint_origins(loaded, where), **kwargs)
    return InspectReport(config={"scheme": CHECKPOINT_SCHEME, **_config_dict(config, loaded)},
                         result=_with_source(report, loaded))


def compare_checkpoint(
    config: EmbeddingConfig, loaded: LoadedTable, schemes: tuple[str, ...], *, real=None, vocab_typed: bool = False,
    **kwargs
) -> CompareReport:
    """The checkpoint's table first, then formula schemes of the same shape, on one batch.

    ``real`` (a classified ``RealModel``) adds its kind to ``source`` and, where the model's token
    table is unknown, leaves the checkpoint's token figures null.
    """
    names = (CHECKPOINT_SCHEME, *schemes)
    where = None if real is None else real.said(loaded.path, flag="--checkpoint")
    config, reports = run_schemes(config, names, tables={CHECKPOINT_SCHEME: loaded.table},
                                  origins=checkpoint_origins(loaded, where), **kwargs)
    reports[0] = _with_source(reports[0], loaded)
    document = CompareReport(config={"schemes": list(names), **_config_dict(config, loaded)}, results=reports)
    if real is None:
        return document
    first = _finish(InspectReport(config=document.config, result=reports[0]), real, vocab_typed=vocab_typed)
    return CompareReport(config=first.config, results=[first.result, *reports[1:]])


def real_model_shape(model, vocab: int, *, vocab_typed: bool, ctx: int) -> dict:
    """``dim``, ``ctx``, ``vocab`` and ``scheme`` for make_config from a classified real model.

    Args:
        model: a ``real_sources.RealModel``.
        vocab: --vocab (the flag's value or its default). vocab_typed: whether the user typed it.
        ctx: --ctx, used only where the model states no context (ALiBi without a trained length).
    """
    if model.loaded is not None:
        shape = checkpoint_shape(model.loaded, vocab)
        return {**shape, "vocab": model.vocab or shape["vocab"], "scheme": None}
    if model.rope is not None:
        return {**rope_model_shape(model.rope, vocab), "scheme": "rope"}
    if model.bias is not None:  # no context of its own: --ctx sets the positions measured
        return {"dim": model.bias.dim, "ctx": ctx, "vocab": model.bias.vocab or vocab, "scheme": "relative_bias"}
    formula = model.formula
    return {"dim": formula.dim, "ctx": formula.ctx or ctx, "vocab": formula.vocab or vocab, "scheme": formula.scheme}


def _finish(report, model, *, vocab_typed: bool):
    """The report with the model's ``source`` and, where the token table is unknown, no token figures; each RoPE
    set under ``layer_types`` likewise (its own set's source, the model's token figures)."""
    result = _finished(report.result, model, vocab_typed=vocab_typed)
    if result.layer_types and model.rope is not None:
        sets = {one.layer_type: one for one in model.rope.layer_types()}
        listed = [(name, _finished(one, dataclasses.replace(model, rope=sets[name]), vocab_typed=vocab_typed))
                  if name in sets else (name, one) for name, one in result.layer_types]
        result = dataclasses.replace(result, layer_types=listed)
    result = dataclasses.replace(result, model=None if model.reading is None else model.reading.model_dict(),
                                 layer_map=None if model.reading is None else model.reading.layer_map())
    config = report.config if result.params.token is not None else {**report.config, "model_vocab": None}
    return dataclasses.replace(report, config=config, result=result)


def _finished(result: SchemeReport, model, *, vocab_typed: bool) -> SchemeReport:
    """One scheme report with the model's ``source`` and token figures (the model's own shape: ``_finish``)."""
    params = result.params
    reading = model.reading
    if reading is not None and (model.loaded is None or model.projected_tokens is not None) \
            and reading.token_parameters is not None:  # the model's token table, not one head's (or as stored)
        params = dataclasses.replace(params, token=reading.token_parameters)
    elif model.projected_tokens is not None:  # no config: the stored table the weights project
        params = dataclasses.replace(params, token=model.projected_tokens[0] * model.projected_tokens[1])
    if model.vocab is None and not vocab_typed:
        params = dataclasses.replace(params, token=None)
    source: SourceDescription = model
    if model.vocab is None and vocab_typed:
        source = NotedSource(model, token_note="token parameters from --vocab (the model's token table is unknown)")
    grid = None
    if model.loaded is not None and model.loaded.class_row is not None:  # a vision table: patches on a grid
        from posemb_cli.measures.grid import grid_similarity

        grid = grid_similarity(model.loaded.table)
    return dataclasses.replace(result, params=params, source=source, grid=grid)


def inspect_real_model(config: EmbeddingConfig, model, *, vocab_typed: bool, **kwargs) -> InspectReport:
    """Every diagnostic of ``inspect`` for a classified real model: its table, its RoPE or its formula."""
    if model.loaded is not None:
        report = inspect_checkpoint(config, model.loaded, where=model.said(model.loaded.path, flag="--checkpoint"),
                                    **kwargs)
    elif model.rope is not None:
        report = inspect_rope_config(config, model.rope, where=model.said(model.rope.path, flag="--config"), **kwargs)
    elif model.bias is not None:

        report = inspect_relative_bias(config, model.bias, **kwargs)
    else:
        from posemb_cli.run.config import with_position_settings

        formula = model.formula
        settings = {"heads": formula.heads} if formula.scheme == "alibi" else {}
        report = inspect(with_position_settings(config, schemes=(formula.scheme,), **settings), formula.scheme,
                         **kwargs)
        report = dataclasses.replace(report, config={**report.config, "model_config": formula.path})
    return _finish(report, model, vocab_typed=vocab_typed)


RELATIVE_BIAS_SCHEME = "relative_bias"


def relative_bias_builder(table: RelativeBiasTable):
    """``build(name, config, device=, dtype=)`` of the scheme holding the model's own bias table."""
    from posemb_cli.core.schemes.relative_bias import RelativeAttentionBias

    def build_relative_bias(name, config, *, device, dtype):
        return RelativeAttentionBias(table.weight, config.ctx, config.dim, bidirectional=table.bidirectional,
                                     max_distance=table.max_distance, device=device, dtype=dtype)

    return build_relative_bias


def inspect_relative_bias(config: EmbeddingConfig, table: RelativeBiasTable, **kwargs) -> InspectReport:
    """Every diagnostic that applies to the bias table, with the bias against distance under ``relative_bias``.

    Args:
        config: settled settings; D is the model width, L (ctx) the positions measured.
        table: the model's bias table and its bucket edges.
    """
    from posemb_cli.measures.relative_bias import relative_bias_profile

    build = relative_bias_builder(table)
    report = inspect(config, RELATIVE_BIAS_SCHEME, builders={RELATIVE_BIAS_SCHEME: build}, **kwargs)
    result, signal = report.result, report.result.signal
    if signal is None:
        raise ValueError("the relative bias was built, so its signal figures were measured")
    profile = relative_bias_profile(build(RELATIVE_BIAS_SCHEME, config, device="cpu", dtype=None))
    seq_len = result.shapes["ids"][1]
    shapes = {**result.shapes, "position": [table.heads, seq_len, seq_len]}  # the bias added to the scores
    result = dataclasses.replace(result, shapes=shapes, neighbour_similarity=None, table=None, source=table,
                                 signal=dataclasses.replace(signal, relative_bias=profile))
    return dataclasses.replace(report, config={**report.config, "checkpoint": table.path, "key": table.key},
                               result=result)
