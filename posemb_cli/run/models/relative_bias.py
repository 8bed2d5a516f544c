"""Inspect T5's learned relative-attention bias: the bias against signed distance per head, and the scorecard.

The model's (N, H) table is run as the ``relative_bias`` scheme on the usual
batch, so the relative check and the scorecard read the real bias. What does
not apply is said, not invented: there is no additive table (``table`` null),
the neighbour similarity of position vectors is not defined for a bias per
distance (null), and the position part of one forward pass is the (H, T, T)
bias added to the scores, from N x H parameters.
"""

from __future__ import annotations

import dataclasses

from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.report import InspectReport
from posemb_cli.sources.weights.relative_bias import RelativeBiasTable

SCHEME = "relative_bias"

__all__ = ["SCHEME", "inspect_relative_bias", "relative_bias_builder"]


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
    from posemb_cli.run.analysis import inspect

    build = relative_bias_builder(table)
    report = inspect(config, SCHEME, builders={SCHEME: build}, **kwargs)
    result, signal = report.result, report.result.signal
    if signal is None:
        raise ValueError("the relative bias was built, so its signal figures were measured")
    profile = relative_bias_profile(build(SCHEME, config, device="cpu", dtype=None))
    seq_len = result.shapes["ids"][1]
    shapes = {**result.shapes, "position": [table.heads, seq_len, seq_len]}  # the bias added to the scores
    result = dataclasses.replace(result, shapes=shapes, neighbour_similarity=None, table=None, source=table,
                                 signal=dataclasses.replace(signal, relative_bias=profile))
    return dataclasses.replace(report, config={**report.config, "checkpoint": table.path, "key": table.key},
                               result=result)
