"""Analyse a real model's RoPE from its config: one head's rotary features, every layer type.

D is one head's rotary features: every head of a RoPE model rotates with the
same frequencies, so one head shows the whole position signal at a fraction
of the cost; features of the head that do not rotate carry no position and are
reported, not analysed. A config with one RoPE block per layer type (Gemma 3)
gives one analysis per layer type: the set whose layers attend farthest at the
usual keys, all of them under ``layer_types``. Each set is analysed over the
distances its layers attend (``RopeModel.attends``): a sliding set's window, else
its context; a set whose frequencies depend on the sequence length (dynamic NTK,
LongRoPE) keeps the frequencies of the context it runs at.
"""

from __future__ import annotations

import dataclasses

from posemb_cli.core.schemes.rope_scaling import SCALING_KINDS, SEQ_LEN_KINDS, RopeScaling, rope_frequencies
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.report import InspectReport
from posemb_cli.sources.model.rope_model import RopeModel

__all__ = ["inspect_rope_config", "rope_model_shape", "rope_settings"]


def rope_model_shape(model: RopeModel, vocab: int) -> dict:
    """``dim``, ``ctx`` and ``vocab`` for make_config: one head's rotary features, the analysed context."""
    return {"dim": model.rotary_dim, "ctx": model.ctx, "vocab": model.vocab or vocab}


def rope_settings(config: EmbeddingConfig, model: RopeModel, *, ctx: int | None = None) -> EmbeddingConfig:
    """The settings of the ``rope`` scheme that reproduce the model's RoPE, over ``ctx`` positions (default: the
    context the set runs at).

    Kinds that no ``--rope-scaling`` flag names (longrope, proportional, freq_factors) are settled as
    plain RoPE here; the scheme itself is built from the model's full scaling
    (``model_rope_builder``) and the JSON config names the real kind.
    """
    from posemb_cli.run.config import with_position_settings

    s = model.scaling
    flag_kind = s.kind in SCALING_KINDS
    ctx = model.ctx if ctx is None else ctx
    return with_position_settings(
        dataclasses.replace(config, base=model.base, dim=model.rotary_dim, ctx=ctx,
                            seq_len=min(config.seq_len, ctx)), schemes=("rope",),
        head_dim=model.rotary_dim, rope_layout=model.layout, rope_scaling=s.kind if flag_kind else "none",
        rope_factor=s.factor if flag_kind else 1.0, original_ctx=s.original_ctx if flag_kind else None,
        beta_fast=s.beta_fast, beta_slow=s.beta_slow, low_freq_factor=s.low_freq_factor,
        high_freq_factor=s.high_freq_factor, attention_factor=s.attention_factor if flag_kind else None, heads=1)


def config_origins(model: RopeModel, where: str | None = None) -> dict[str, str]:
    """Where a config sets the run's sizes: its fields, named for a memory refusal.

    Args:
        where: the config as the user named it (default ``--config PATH``).
    """
    where = where or f"--config {model.path}"
    return {"dim": f"{where}: head_dim", "ctx": f"{where}: max_position_embeddings",
            **({"vocab": f"{where}: vocab_size"} if model.vocab else {})}


def _scaling_at(model: RopeModel, ctx: int) -> RopeScaling:
    """The model's scaling, for a scheme built over ``ctx`` positions: a kind whose frequencies depend on the
    sequence length is frozen at the context the set runs at, so a window analyses the frequencies in use."""
    s = model.scaling
    if ctx >= model.ctx or s.kind not in SEQ_LEN_KINDS:
        return s
    _, scaled, attention = rope_frequencies(model.rotary_dim, model.base, s, seq_len=model.ctx)
    unscaled = rope_frequencies(model.rotary_dim, model.base, RopeScaling(), seq_len=model.ctx)[1]
    return RopeScaling(kind="freq_factors", short_factor=tuple((unscaled / scaled).tolist()),
                       attention_factor=attention)


def model_rope_builder(model: RopeModel, ctx: int | None = None):
    """``build(name, config, device=, dtype=)`` of the rope scheme with the model's own scaling."""
    from posemb_cli.core.schemes.rope import build

    scaling = _scaling_at(model, model.ctx if ctx is None else ctx)

    def build_model_rope(name, config, *, device, dtype):
        return build(config, device=device, dtype=dtype, scaling=scaling)

    return build_model_rope


def _inspect_one(config: EmbeddingConfig, model: RopeModel, where: str | None, **kwargs) -> InspectReport:
    from posemb_cli.run.analysis import inspect

    distance = model.attends.distance
    report = inspect(rope_settings(config, model, ctx=distance), "rope",
                     builders={"rope": model_rope_builder(model, distance)}, origins=config_origins(model, where),
                     **kwargs)
    s = model.scaling
    settings = {} if s.kind in SCALING_KINDS else {
        "rope_scaling": s.kind, "rope_factor": s.factor, "original_ctx": s.original_ctx,
        "attention_factor": s.attention_factor}
    return dataclasses.replace(
        report, config={**report.config, **settings, "model_config": model.path},
        result=dataclasses.replace(report.result, source=model))


def inspect_rope_config(config: EmbeddingConfig, model: RopeModel, *, where: str | None = None,
                        **kwargs) -> InspectReport:
    """The rope scheme with the model's head size, base, context and scaling: every diagnostic, no weights.

    Per-layer-type configs: one analysis per layer type, all under the result's ``layer_types``.

    Args:
        where: the config as the user named it, for a refusal (default ``--config PATH``).
    """
    reports = [_inspect_one(config, one, where, **kwargs) for one in model.layer_types()]
    first = reports[0]
    if model.layer_type is None and not model.others:
        return first
    listed = [(str(one.layer_type), report.result) for one, report in zip(model.layer_types(), reports, strict=True)]
    return dataclasses.replace(first, result=dataclasses.replace(first.result, layer_types=listed))
