"""The core of `posemb bench`: the composer's forward pass timed against a copy of its output's size.

Notation: B batch, T sequence length, D model dimension, V vocabulary size.

A ``copy_`` of a (B, T, D) tensor into a preallocated one moves 2 * B*T*D
elements (read + write): on most machines as close to the memory-bandwidth
limit as a plain op gets. The forward pass must at least read the B*T token
rows, the (T, D) positions and the ids, and write the (B, T, D) output. Both
byte counts over their median times give bytes per second, and their ratio,
``fraction_of_copy``, reads as a fraction of the bandwidth limit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial

from posemb_cli.commands.bench.report import BenchReport
from posemb_cli.core.dtypes import dtype_size
from posemb_cli.core.progress import Progress, or_silent
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.run.config import check_default_position_settings, make_config, require_int_in, require_positive_int
from posemb_cli.run.memory import estimate_bench_bytes, require_fits, size_blame

BENCH_DEFAULTS = {"vocab": 32000, "dim": 1024, "ctx": 2048, "batch": 8}  # the command's, for a memory refusal
_INT64 = 8


def bench_configs(*, dims: tuple[int, ...], ctx: int, seq_len: int | None, schemes: tuple[str, ...] = (),
                  **settings) -> tuple[EmbeddingConfig, ...]:
    """One validated config per dim (and per ``schemes``' head settings); T defaults to the whole context.

    Raises:
        PosembError: naming the flag, for the first value that is not allowed.
    """
    require_positive_int("--ctx", ctx)
    seq_len = ctx if seq_len is None else seq_len
    require_positive_int("--seq-len", seq_len)
    if seq_len > ctx:
        raise PosembError(f"--seq-len {seq_len} exceeds --ctx {ctx}: a position table has only ctx rows")
    # make_config also checks a neighbour offset that bench does not use; give it a table it accepts.
    return tuple(check_default_position_settings(dataclasses.replace(
        make_config(dim=dim, ctx=max(ctx, 2), seq_len=seq_len, max_offset=1, **settings), ctx=ctx), schemes)
        for dim in dims)


MAX_ROUNDS = 100_000  # timed rounds of one scheme: past this a bench runs for hours, not seconds


def check_repeats(*, warmup: int, repeats: int) -> None:
    require_positive_int("--repeats", repeats, most=MAX_ROUNDS, most_text=f"{MAX_ROUNDS:,}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise PosembError(f"--warmup must be zero or a positive integer, got {warmup!r}")
    require_int_in("--warmup", warmup, 0, MAX_ROUNDS, most_text=f"{MAX_ROUNDS:,}")


def run_bench(
    configs: tuple[EmbeddingConfig, ...],
    schemes: tuple[str, ...],
    *,
    warmup: int,
    repeats: int,
    progress: Progress | None = None,
) -> BenchReport:
    """Time every scheme at every dim; refuse up front (exit 2) when the tensors would not fit."""
    import torch

    from posemb_cli.core.dtypes import resolve_dtype
    from posemb_cli.run.preparation import resolve_device

    check_repeats(warmup=warmup, repeats=repeats)
    device = resolve_device(configs[0].device)
    largest = max(configs, key=lambda config: estimate_bench_bytes((config,), schemes))
    blame = size_blame(largest, schemes, copies=3, defaults=BENCH_DEFAULTS)
    require_fits(estimate_bench_bytes(configs, schemes), device, flags=blame)
    dtype = resolve_dtype(configs[0].dtype)
    rounds = len(configs) * len(schemes) * (warmup + repeats)
    progress = or_silent(progress)
    progress.stage("time forward and copy", rounds)
    tick = progress.advance
    results = []
    with torch.no_grad():
        for config in configs:
            results += _bench_dim(config, schemes, device, dtype, warmup=warmup, repeats=repeats, tick=tick)
    first = dataclasses.replace(configs[0], device=str(device)).to_dict()
    for key in ("dim", "max_offset", "ids", "full"):  # full: no signal pass here
        first.pop(key)
    settings = {"schemes": list(schemes), "dims": [c.dim for c in configs], **first,
                "warmup": warmup, "repeats": repeats, "threads": torch.get_num_threads()}
    return BenchReport(config=settings, results=results)


def _bench_dim(config, schemes, device, dtype, *, warmup, repeats, tick) -> list[dict]:
    import torch

    from posemb_cli.commands.bench.timing import time_side_by_side
    from posemb_cli.core.embeddings import EmbeddingComposer, TokenEmbedding
    from posemb_cli.core.schemes import build_scheme
    from posemb_cli.sources.batch.ids import random_ids

    batch, seq_len, dim = config.batch, config.seq_len, config.dim
    token = TokenEmbedding(config.vocab, dim, config.init_std,
                           generator=torch.Generator().manual_seed(config.seed), device=device, dtype=dtype)
    ids = random_ids(batch, seq_len, config.vocab, seed=config.seed + 2).to(device)  # (B, T)
    out = torch.zeros(batch, seq_len, dim, device=device, dtype=dtype)  # (B, T, D), pages touched once
    source = torch.ones_like(out)
    target = torch.zeros_like(out)
    element = dtype_size(config.dtype)
    output_bytes = out.numel() * element
    results = []
    for name in schemes:
        composer = EmbeddingComposer(token, build_scheme(name, config, device=device, dtype=dtype))
        position_bytes = _distinct_elements(composer.position(seq_len)) * element  # a zero view reads one
        calls: dict[str, Callable[[], object]] = {
            "forward": partial(composer, ids, out=out),
            "fresh_output": partial(composer, ids),
            "copy": partial(target.copy_, source),
        }
        timings = time_side_by_side(calls, device=device, warmup=warmup, repeats=repeats, progress=tick)
        moved = 2 * output_bytes + position_bytes + ids.numel() * _INT64  # rows read + output written
        results.append(_result(name, config, timings, moved=moved, copied=2 * output_bytes))
        del composer
    return results


def _distinct_elements(tensor) -> int:
    """Elements a read of ``tensor`` touches: broadcast (stride-0) dimensions count once."""
    count = 1
    for size, stride in zip(tensor.shape, tensor.stride(), strict=True):
        if stride != 0:
            count *= size
    return count


def _result(name: str, config: EmbeddingConfig, timings: dict, *, moved: int, copied: int) -> dict:
    forward, fresh, copy = timings["forward"], timings["fresh_output"], timings["copy"]
    tokens = config.batch * config.seq_len
    copy_rate = copied / copy.median
    return {
        "scheme": name,
        "dim": config.dim,
        "median_s": forward.median,
        "min_s": forward.min,
        "max_s": forward.max,
        "spread": forward.spread,
        "tokens_per_s": tokens / forward.median,
        "bytes_per_s": moved / forward.median,
        "copy_median_s": copy.median,
        "copy_spread": copy.spread,
        "copy_bytes_per_s": copy_rate,
        "fraction_of_copy": moved / forward.median / copy_rate,
        "fresh_output_median_s": fresh.median,
        "fresh_output_fraction_of_copy": moved / fresh.median / copy_rate,
        "bytes_moved": moved,
        "copy_bytes": copied,
    }
