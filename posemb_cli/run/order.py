"""`posemb order`'s core: does attention tell "dog bites man" from "man bites dog"?

One seeded head of self-attention (random Wq, Wk, Wv, no mask) runs on a batch
and on the same batch with its tokens permuted; for each scheme the report
gives the largest ``|attn(P x) - P attn(x)|``. Without a positional signal it
is rounding-level (attention is permutation-equivariant); with one it is not.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from posemb_cli.core.settings import EmbeddingConfig

ORDER_SCHEMA = "posemb.order/1"
_WEIGHT_SEED = 4  # offsets from --seed: attention weights, then the permutation
_PERMUTATION_SEED = 6
_EQUIVARIANT_EPS = 1000  # rounding level: this many machine epsilons of the largest output


@dataclass(frozen=True)
class OrderReport:
    config: dict
    results: list[dict]

    def to_dict(self) -> dict:
        return {"schema": ORDER_SCHEMA, "config": self.config, "results": self.results}


def _permutation(seq_len: int, seed: int):
    import torch

    permutation = torch.randperm(seq_len, generator=torch.Generator().manual_seed(seed))
    if seq_len > 1 and bool((permutation == torch.arange(seq_len)).all()):
        permutation = permutation.roll(1)  # never the identity
    return permutation


def run_order(config: EmbeddingConfig, schemes: tuple[str, ...]) -> OrderReport:
    """Measure each scheme's loss of permutation equivariance on one batch.

    Returns:
        The report; ``results`` has one ``{"scheme", "max_abs_diff", "output_max_abs",
        "relative_diff", "rounding_level", "equivariant", "acts_on"}`` per scheme.
    """
    import torch

    from posemb_cli.core.attention import (
        attention_weights,
        permutation_gap,
        rms_normalize,
    )
    from posemb_cli.core.dtypes import resolve_dtype
    from posemb_cli.core.embeddings import EmbeddingComposer, TokenEmbedding
    from posemb_cli.core.schemes import build_scheme
    from posemb_cli.run.analysis import _read_batch
    from posemb_cli.run.device import resolve_device
    from posemb_cli.run.memory import estimate_bytes, require_fits
    from posemb_cli.run.memory_blame import size_blame
    from posemb_cli.run.position_config import settle_position_settings
    from posemb_cli.sources.ids import random_ids

    config, ids = _read_batch(settle_position_settings(config, schemes=schemes))
    device = resolve_device(config.device)
    config = dataclasses.replace(config, device=str(device))
    scores = 6 * config.batch * config.seq_len * config.seq_len * 8  # scores, weights and their float64 gaps
    require_fits(estimate_bytes(config, schemes) + scores, device,
                 flags=size_blame(config, schemes, scores=True))
    if ids is None:  # drawn only once the estimate says it fits
        ids = random_ids(config.batch, config.seq_len, config.vocab, seed=config.seed + 2)
    dtype = resolve_dtype(config.dtype)
    compute = torch.float64 if dtype == torch.float64 else torch.float32
    token = TokenEmbedding(config.vocab, config.dim, config.init_std,
                           generator=torch.Generator().manual_seed(config.seed), device=device, dtype=dtype)
    ids = ids.to(device)
    weights = attention_weights(config.dim, seed=config.seed + _WEIGHT_SEED, dtype=compute, device=device)
    permutation = _permutation(ids.shape[1], config.seed + _PERMUTATION_SEED).to(device)
    rounding = _EQUIVARIANT_EPS * torch.finfo(compute).eps
    results = []
    with torch.no_grad():
        for name in schemes:
            position = build_scheme(name, config, device=device, dtype=dtype)
            composer = EmbeddingComposer(token, position)
            extra = {}
            if hasattr(position, "rotate"):
                extra["rotate"] = position.rotate
            if hasattr(position, "bias"):
                where = torch.arange(ids.shape[1], device=device)
                extra["bias"] = position.bias(where, where)[0]  # (T, T): the steepest head, one head here

            def compose(batch, composer=composer):
                return rms_normalize(composer(batch).to(compute))  # (B, T, D)

            gap, scale = permutation_gap(compose, ids, permutation, weights, **extra)
            relative = gap / scale if scale > 0 else 0.0
            results.append({"scheme": name, "max_abs_diff": gap, "output_max_abs": scale,
                            "relative_diff": relative, "rounding_level": rounding,
                            "equivariant": relative <= rounding,
                            "acts_on": getattr(position, "acts_on", "input")})
    return OrderReport(config={"schemes": list(schemes), **config.to_dict()}, results=results)
