"""`posemb padding`'s core: does left padding change what the real tokens get?

One seeded head of attention (the ``order`` head, with pad keys masked) runs
on a batch and on the same batch with N pad tokens in front. Position ids on
the padded batch are either ``arange`` (0..N+T-1, the naive choice) or
``from_mask`` (cumulative sum of the mask minus one, pads set to 1, as
generation code does). For each scheme and each choice the report gives the
largest ``|out_padded[real tokens] - out_plain|``.
"""

from __future__ import annotations

from posemb_cli.commands.padding.report import PaddingReport
from posemb_cli.core.progress import Progress, or_silent
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.run.preparation import prepare_head

POSITION_IDS = ("arange", "from_mask")
PAD_ID = 0

__all__ = ["POSITION_IDS", "position_ids", "run_padding"]


def position_ids(mask, kind: str):
    """(B, T) int64 position ids of a (B, T) 0/1 mask: ``arange`` or ``from_mask`` (pads get 1)."""
    import torch

    if kind == "arange":
        return torch.arange(mask.shape[1], device=mask.device).expand(mask.shape[0], -1)
    ids = mask.long().cumsum(dim=1) - 1
    return ids.masked_fill(mask == 0, 1)


def run_padding(config: EmbeddingConfig, schemes: tuple[str, ...], pad: int, *,
                progress: Progress | None = None, builders: dict | None = None, tables: dict | None = None,
                origins: dict[str, str] | None = None, window: int | None = None) -> PaddingReport:
    """Measure each scheme's change of the real tokens' outputs under ``pad`` left pads, per position-id choice.

    ``builders`` and ``tables`` stand in for the registry's schemes (a real model's RoPE, a checkpoint's
    table) as in ``analysis.run_schemes``; ``origins`` names the file that set a size, for a memory refusal;
    ``window`` masks keys that far apart or farther (a sliding set's layers attend no farther).

    Returns:
        The report; ``results`` has one ``{"scheme", "position_ids", "max_abs_diff", "output_max_abs",
        "relative_diff", "rounding_level", "invariant", "acts_on"}`` per scheme and choice.
    """
    import torch

    from posemb_cli.core.attention import rms_normalize
    from posemb_cli.core.masked_attention import masked_self_attention
    from posemb_cli.core.schemes import build_scheme
    from posemb_cli.core.schemes.protocols import BiasScheme, RotaryScheme

    def fits_padded(settled: EmbeddingConfig) -> None:
        if settled.seq_len + pad > settled.ctx:
            room = max(settled.ctx - settled.seq_len, 0)
            if origins and "ctx" in origins:  # a model's context: --ctx is not the user's to raise
                raise PosembError(f"--pad {pad}: the padded length {settled.seq_len} + {pad} exceeds the "
                                  f"{settled.ctx} positions of {origins['ctx']}; give --pad {room} or less, or a "
                                  "shorter --seq-len")
            raise PosembError(f"--pad {pad}: the padded length {settled.seq_len} + {pad} exceeds --ctx {settled.ctx}; "
                              f"give --pad {room} or less, or a larger --ctx")

    def scores(settled: EmbeddingConfig) -> int:  # scores, weights and their float64 gaps, padded
        return 6 * settled.batch * (settled.seq_len + pad) ** 2 * 8

    progress = or_silent(progress)
    head = prepare_head(config, schemes, progress, extra_bytes=scores, check_batch=fits_padded, origins=origins)
    run, compute, weights, rounding = head.prepared, head.compute, head.weights, head.rounding
    config, device, dtype, token, ids = run.config, run.device, run.dtype, run.token, run.ids
    batch = ids.shape[0]
    padded = torch.cat((torch.full((batch, pad), PAD_ID, dtype=ids.dtype, device=device), ids), dim=1)
    plain_mask = torch.ones_like(ids, dtype=torch.bool)
    padded_mask = torch.cat((torch.zeros(batch, pad, dtype=torch.bool, device=device), plain_mask), dim=1)
    results = []
    with torch.no_grad():
        for name in schemes:
            progress.stage(f"{name}: attention on the batch and on it left-padded")
            if name in (tables or {}):  # a real model's table, read from a checkpoint
                from posemb_cli.core.schemes.table import TablePositionalEmbedding

                position = TablePositionalEmbedding((tables or {})[name], device=device, dtype=dtype)
            else:
                position = (builders or {}).get(name, build_scheme)(name, config, device=device, dtype=dtype)
            table = position(config.seq_len + pad)  # (N + T, D): zeros for schemes acting inside attention
            rotate = position.rotate if isinstance(position, RotaryScheme) else None
            bias = None
            if isinstance(position, BiasScheme):
                bias = lambda m, n, position=position: position.bias(m, n)[0]  # noqa: E731  (Tq, Tk), one head

            def attend(batch_ids, mask, where, table=table, rotate=rotate, bias=bias):
                x = rms_normalize((token(batch_ids) + table[where]).to(compute))  # (B, T, D)
                return masked_self_attention(x, weights, mask, where, rotate=rotate, bias=bias, window=window)

            plain = attend(ids, plain_mask, position_ids(plain_mask, "arange"))  # (B, T, D)
            scale = float(plain.abs().max())
            for kind in POSITION_IDS:
                out = attend(padded, padded_mask, position_ids(padded_mask, kind))[:, pad:]  # (B, T, D)
                gap = float((out.to(torch.float64) - plain.to(torch.float64)).abs().max())
                relative = gap / scale if scale > 0 else 0.0
                results.append({"scheme": name, "position_ids": kind, "max_abs_diff": gap, "output_max_abs": scale,
                                "relative_diff": relative, "rounding_level": rounding,
                                "invariant": relative <= rounding, "acts_on": position.acts_on,
                                **({"window": window} if window is not None else {})})
    # No offsets and no signal pass here.
    settings = {key: value for key, value in config.to_dict().items() if key not in ("max_offset", "full")}
    return PaddingReport(config={"schemes": list(schemes), "pad": pad, "pad_id": PAD_ID,
                                 "position_ids": list(POSITION_IDS), **settings}, results=results)
