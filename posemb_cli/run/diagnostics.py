"""The figures beyond the lesson's, for one built scheme: plain values for ``SchemeReport.extra``.

Keys (the JSON contract in DESIGN.md): ``acts_on``, ``relative_deviation``,
``scorecard`` and ``long_term_decay`` (null without frequencies) for every
scheme; ``full_turn_pairs`` and ``context_bound`` for frequency schemes; ``spectrum`` for learned and checkpoint tables; ``attention_factor`` for rope; ``slopes`` and
``attention_bias`` for alibi.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from posemb_cli.measures.decay import full_turn_pairs, long_term_decay
from posemb_cli.measures.relative import probe_vectors, relative_deviation
from posemb_cli.measures.scorecard import scorecard
from posemb_cli.measures.spectrum import table_spectrum
from posemb_cli.run.context_bound import context_bound

_INPUT = "input"
_PROBE_SEED = 3  # offset from --seed of the q/k pair of the relative checks


def position_extras(position, config, *, rebuild: Callable | None = None) -> dict:
    """Every extra figure of one scheme, measured on its tensors.

    Args:
        position: the built scheme (any that follows the protocol).
        config: the effective EmbeddingConfig (ctx, max_offset, seed, init_std).
        rebuild: builds the same scheme again, for the determinism check.
    """
    with torch.no_grad():
        table = position.table()
        compute = torch.float64 if table.dtype == torch.float64 else torch.float32
        q, k = probe_vectors(position.dim, config.init_std, seed=config.seed + _PROBE_SEED,
                             device=table.device, dtype=compute)
        found = relative_deviation(position, q, k, max_offset=config.max_offset)
        extra = {"acts_on": getattr(position, "acts_on", _INPUT), "relative_deviation": found["deviation"],
                 "relative_scale": found["scale"]}
        bands = position.bands()
        if bands:
            extra["long_term_decay"] = long_term_decay([band["inv_freq"] for band in bands], int(position.max_ctx))
            extra["full_turn_pairs"] = full_turn_pairs(bands, int(position.max_ctx))
            bound = context_bound(position, int(position.max_ctx))
            if bound is not None:
                extra["context_bound"] = bound
        else:  # DESIGN.md names the key for every scheme; the RoFormer bound needs frequencies: null
            extra["long_term_decay"] = None
            if extra["acts_on"] == _INPUT:  # a learned or checkpoint table: what its rows learned
                extra["spectrum"] = table_spectrum(table).to_dict()
        if hasattr(position, "attention_factor"):
            extra["attention_factor"] = float(position.attention_factor)
        if hasattr(position, "slopes"):
            extra["slopes"] = position.slopes.tolist()
            extra["attention_bias"] = position.bias_at_offsets(config.max_offset)
        extra["scorecard"] = scorecard(position, rebuild=rebuild, max_offset=config.max_offset,
                                       seed=config.seed + _PROBE_SEED, probe_std=config.init_std)
    return extra
