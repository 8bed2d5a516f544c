"""Composer forward against a copy_ of its output's size, before and after the in-place path.

Four callables timed round-robin on one batch (B=8, T=2048, D=1024 by default):
- before: the straightforward ``token(ids) + position(T)``, as the first commit had it
  (a learned table looked up with ``arange(T)``; two fresh (B, T, D) allocations per call);
- default: ``composer(ids)`` under no_grad now (gather into one fresh output, add in place);
- into out: ``composer(ids, out=out)``, the figure `posemb bench` reports;
- copy: ``target.copy_(source)``, the bandwidth yardstick.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from posemb_cli.commands.bench.timing import time_side_by_side
from posemb_cli.core.embeddings import EmbeddingComposer, TokenEmbedding
from posemb_cli.core.schemes import build_scheme
from posemb_cli.run.config import make_config


def _before(composer: EmbeddingComposer, ids: torch.Tensor, seq_len: int):
    position = composer.position
    if hasattr(position, "embedding"):  # learned: the original lookup with arange(T)
        rows = torch.arange(seq_len)
        return lambda: F.embedding(ids, composer.token.weight) + F.embedding(rows, position.embedding.weight)
    return lambda: F.embedding(ids, composer.token.weight) + position(seq_len).unsqueeze(0)


def measure(*, dim: int, seq_len: int, batch: int, schemes: tuple[str, ...], repeats: int, warmup: int = 3) -> dict:
    config = make_config(dim=dim, ctx=seq_len, seq_len=seq_len, batch=batch, device="cpu")
    token = TokenEmbedding(config.vocab, dim, generator=torch.Generator().manual_seed(0))
    ids = torch.randint(0, config.vocab, (batch, seq_len), generator=torch.Generator().manual_seed(2))
    out = torch.zeros(batch, seq_len, dim)
    source, target = torch.ones_like(out), torch.zeros_like(out)
    output_bytes = out.numel() * 4
    rows = []
    with torch.no_grad():
        for name in schemes:
            composer = EmbeddingComposer(token, build_scheme(name, config, device=torch.device("cpu"),
                                                             dtype=torch.float32))
            before = _before(composer, ids, seq_len)
            assert torch.equal(before(), composer(ids)), "the paths disagree"
            timings = time_side_by_side({
                "before": before,
                "default": lambda composer=composer: composer(ids),
                "into_out": lambda composer=composer: composer(ids, out=out),
                "copy": lambda: target.copy_(source),
            }, warmup=warmup, repeats=repeats)
            moved = 2 * output_bytes + seq_len * dim * 4 + ids.numel() * 8
            copy_rate = 2 * output_bytes / timings["copy"].median
            row = {"scheme": name, "copy_median_s": timings["copy"].median, "copy_bytes_per_s": copy_rate}
            for key in ("before", "default", "into_out"):
                row[f"{key}_median_s"] = timings[key].median
                row[f"{key}_spread"] = timings[key].spread
                row[f"{key}_fraction_of_copy"] = moved / timings[key].median / copy_rate
            rows.append(row)
    return {"dim": dim, "seq_len": seq_len, "batch": batch, "repeats": repeats, "threads": torch.get_num_threads(),
            "rows": rows}


def report(result: dict) -> str:
    lines = [f"composer forward, B={result['batch']} T={result['seq_len']} D={result['dim']} float32 on CPU "
             f"({result['threads']} threads), median of {result['repeats']}; fraction of copy_ bandwidth:"]
    for row in result["rows"]:
        lines.append(
            f"  {row['scheme']:<11} before {row['before_fraction_of_copy']:.2f} "
            f"({row['before_median_s'] * 1e3:.1f} ms) | default {row['default_fraction_of_copy']:.2f} "
            f"({row['default_median_s'] * 1e3:.1f} ms) | into out {row['into_out_fraction_of_copy']:.2f} "
            f"({row['into_out_median_s'] * 1e3:.1f} ms) | copy_ {row['copy_median_s'] * 1e3:.1f} ms, "
            f"{row['copy_bytes_per_s'] / 1e9:.1f} GB/s  (target into out >= 0.5: "
            f"{'met' if row['into_out_fraction_of_copy'] >= 0.5 else 'NOT met'})")
    return "\n".join(lines)
