"""Reading q and k as applied: llama.cpp's permutation undone, and blocks of key/value groups that cover every head."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from posemb_cli.sources.weights.qk_weights import (
    BLOCK_BYTES,
    AttentionShape,
    groups_per_block,
    unpermute_rows,
)

from tests.commands.heads.test_gguf import llama_cpp_permute


@pytest.mark.parametrize(("heads", "kv_heads", "head_dim"), [(4, 4, 8), (32, 8, 128), (9, 3, 64)])
def test_unpermute_inverts_llama_cpps_permute(heads, kv_heads, head_dim):
    rng = np.random.default_rng(heads)
    q = rng.normal(size=(heads * head_dim, 5))
    k = rng.normal(size=(kv_heads * head_dim, 5))
    assert np.array_equal(unpermute_rows(torch.from_numpy(llama_cpp_permute(q, heads, heads)), heads).numpy(), q)
    assert np.array_equal(unpermute_rows(torch.from_numpy(llama_cpp_permute(k, heads, kv_heads)), kv_heads).numpy(),
                          k)
    assert not np.array_equal(llama_cpp_permute(q, heads, heads), q)  # the permutation does move rows


@pytest.mark.parametrize("workers", [1, 2, 8])
@pytest.mark.parametrize("shape", [AttentionShape(9, 3, 64, 576), AttentionShape(32, 8, 128, 4096),
                                   AttentionShape(64, 8, 128, 8192), AttentionShape(128, 1, 256, 16384)])
def test_blocks_fit_the_budget_and_give_every_worker_one(shape, workers):
    per = groups_per_block(shape, workers)
    group = (shape.heads // shape.kv_heads + 1) * shape.head_dim * shape.hidden * 4  # float32
    assert 1 <= per <= shape.kv_heads
    assert per * group <= BLOCK_BYTES or per == 1
    assert -(-shape.kv_heads // per) >= min(workers, shape.kv_heads)  # at least one block per worker where possible
