"""`posemb order`'s core: does attention tell "dog bites man" from "man bites dog"?

One seeded head of self-attention (random Wq, Wk, Wv, no mask) runs on a batch
and on the same batch with its tokens permuted; for each scheme the report
gives the largest ``|attn(P x) - P attn(x)|``. Without a positional signal it
is rounding-level (attention is permutation-equivariant); with one it is not.
"""

from __future__ import annotations

from posemb_cli.commands.order.report import OrderReport
from posemb_cli.core.progress import Progress, or_silent
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.preparation import prepare_head

_PERMUTATION_SEED = 6  # offset from --seed of the permutation (the head's weights: run.attention_head)


def _permutation(seq_len: int, seed: int):
    import torch

    permutation = torch.randperm(seq_len, generator=torch.Generator().manual_seed(seed))
    if seq_len > 1 and bool((permutation == torch.arange(seq_len)).all()):
        permutation = permutation.roll(1)  # never the identity
    return permutation


def run_order(config: EmbeddingConfig, schemes: tuple[str, ...], *, progress: Progress | None = None) -> OrderReport:
    """Measure each scheme's loss of permutation equivariance on one batch.

    Returns:
        The report; ``results`` has one ``{"scheme", "max_abs_diff", "output_max_abs",
        "relative_diff", "rounding_level", "equivariant", "acts_on"}`` per scheme.
    """
    import torch

    from posemb_cli.core.attention import permutation_gap, rms_normalize
    from posemb_cli.core.embeddings import EmbeddingComposer
    from posemb_cli.core.schemes import build_scheme
    from posemb_cli.core.schemes.protocols import BiasScheme, RotaryScheme

    def scores(settled: EmbeddingConfig) -> int:  # scores, weights and their float64 gaps
        return 6 * settled.batch * settled.seq_len * settled.seq_len * 8

    progress = or_silent(progress)
    head = prepare_head(config, schemes, progress, extra_bytes=scores)
    run, compute, weights, rounding = head.prepared, head.compute, head.weights, head.rounding
    config, device, dtype, token, ids = run.config, run.device, run.dtype, run.token, run.ids
    permutation = _permutation(ids.shape[1], config.seed + _PERMUTATION_SEED).to(device)
    results = []
    with torch.no_grad():
        for name in schemes:
            progress.stage(f"{name}: attention on the batch and on its permutation")
            position = build_scheme(name, config, device=device, dtype=dtype)
            composer = EmbeddingComposer(token, position)
            inside: dict = {}  # where the position enters the head, for schemes acting in attention
            if isinstance(position, RotaryScheme):
                inside["rotate"] = position.rotate
            if isinstance(position, BiasScheme):
                where = torch.arange(ids.shape[1], device=device)
                inside["bias"] = position.bias(where, where)[0]  # (T, T): the steepest head, one head here

            def compose(batch, composer=composer):
                return rms_normalize(composer(batch).to(compute))  # (B, T, D)

            gap, scale = permutation_gap(compose, ids, permutation, weights, **inside)
            relative = gap / scale if scale > 0 else 0.0
            results.append({"scheme": name, "max_abs_diff": gap, "output_max_abs": scale,
                            "relative_diff": relative, "rounding_level": rounding,
                            "equivariant": relative <= rounding,
                            "acts_on": position.acts_on})
    settings = {key: value for key, value in config.to_dict().items() if key != "full"}  # no signal pass here
    return OrderReport(config={"schemes": list(schemes), **settings}, results=results)
