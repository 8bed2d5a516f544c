"""TokenEmbedding, the learned and sinusoidal tables, and the composer."""

import numpy as np
import pytest
import torch
from posemb_cli.core.embeddings import EmbeddingComposer, TokenEmbedding
from posemb_cli.core.schemes.learned import LearnedPositionalEmbedding
from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding
from posemb_cli.run.config import PosembError

from tests.conftest import DEVICES
from tests.oracles import sinusoidal_table


@pytest.mark.parametrize("dim", [1, 2, 7, 32, 64])
def test_sinusoidal_matches_the_formula(dim):
    module = SinusoidalPositionalEmbedding(50, dim, dtype=torch.float64)
    torch.testing.assert_close(module.table(), torch.from_numpy(sinusoidal_table(50, dim)), rtol=0, atol=1e-12)


def test_sinusoidal_other_base_and_float32():
    module = SinusoidalPositionalEmbedding(40, 16, base=500.0)
    expected = torch.from_numpy(sinusoidal_table(40, 16, base=500.0)).float()
    torch.testing.assert_close(module.table(), expected, rtol=0, atol=1e-6)


def test_sinusoidal_is_accurate_at_large_positions():
    module = SinusoidalPositionalEmbedding(300_001, 4, dtype=torch.float32)
    p = 300_000
    expected = np.array([np.sin(p), np.cos(p), np.sin(p / 100.0), np.cos(p / 100.0)])
    np.testing.assert_allclose(module.table()[p].numpy(), expected, atol=1e-6)


def test_sinusoidal_has_no_parameters_and_no_table_buffer():
    module = SinusoidalPositionalEmbedding(64, 8)
    assert sum(p.numel() for p in module.parameters()) == 0
    # Fixed, not learned: its frequencies are buffers; its rows come from the formula, none kept per position.
    buffers = dict(module.named_buffers())
    assert "inv_freq" in buffers
    assert all(buffer.shape[0] < 64 for buffer in buffers.values())


def test_sinusoidal_shift_is_a_rotation_per_pair():
    dim, k = 16, 5
    table = sinusoidal_table(40, dim)
    for pair in range(dim // 2):
        w = 1.0 / 10000 ** (2 * pair / dim)
        rotation = np.array([[np.cos(k * w), -np.sin(k * w)], [np.sin(k * w), np.cos(k * w)]])
        shifted = table[:-k, 2 * pair:2 * pair + 2] @ rotation
        np.testing.assert_allclose(shifted, table[k:, 2 * pair:2 * pair + 2], atol=1e-12)


def test_learned_parameter_count_and_lookup():
    module = LearnedPositionalEmbedding(512, 64, init_std=0.05)
    assert sum(p.numel() for p in module.parameters()) == 512 * 64
    torch.testing.assert_close(module(10), module.embedding.weight[:10])
    rows = module.table().double().numpy()  # rows drawn from N(0, init_std^2): 32768 draws
    assert abs(rows.std() - 0.05) < 0.001 and abs(rows.mean()) < 0.001


@pytest.mark.parametrize("module", [
    LearnedPositionalEmbedding(16, 4), SinusoidalPositionalEmbedding(16, 4)], ids=["learned", "sinusoidal"])
def test_beyond_max_ctx_is_refused(module):
    assert module(16).shape == (16, 4)
    with pytest.raises(PosembError, match="sequence length 17 exceeds max context 16"):
        module(17)


def test_init_std_and_seed():
    a = TokenEmbedding(4000, 50, init_std=0.02, generator=torch.Generator().manual_seed(3))
    b = TokenEmbedding(4000, 50, init_std=0.02, generator=torch.Generator().manual_seed(3))
    assert torch.equal(a.weight, b.weight)
    assert abs(a.weight.std().item() - 0.02) < 0.0005
    assert abs(a.weight.mean().item()) < 0.0005


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("make_position", [
    lambda d: LearnedPositionalEmbedding(32, 8, device=d),
    lambda d: SinusoidalPositionalEmbedding(32, 8, device=d)], ids=["learned", "sinusoidal"])
def test_composer_adds_and_broadcasts(device, make_position):
    token = TokenEmbedding(100, 8, device=device)
    position = make_position(device)
    composer = EmbeddingComposer(token, position)
    ids = torch.randint(0, 100, (3, 20), device=device)
    out = composer(ids)
    assert out.shape == (3, 20, 8)
    weight, table = token.weight.detach().cpu().numpy(), position.table().detach().cpu().numpy()
    expected = np.stack([[weight[i] + table[t] for t, i in enumerate(row)] for row in ids.cpu().tolist()])
    np.testing.assert_allclose(out.detach().cpu().numpy(), expected, rtol=0, atol=1e-6)


def test_backward_touches_only_used_rows():
    token = TokenEmbedding(10, 4)
    composer = EmbeddingComposer(token, LearnedPositionalEmbedding(8, 4))
    composer(torch.tensor([[1, 3, 3]])).sum().backward()
    touched = token.weight.grad.abs().sum(1).nonzero().flatten().tolist()
    assert touched == [1, 3]


@pytest.mark.parametrize(("rows", "dim", "block_rows"), [(1000, 64, 16), (333, 48, 7), (4097, 100, 512),
                                                         (50, 3, 16), (17, 1, 16), (3, 5, 16)])
def test_normal_rows_are_the_whole_draw_block_by_block(rows, dim, block_rows):
    from posemb_cli.core.embeddings import normal_rows, normal_weight

    whole = normal_weight(rows, dim, 0.02, generator=torch.Generator().manual_seed(9)).detach()
    blocks = list(normal_rows(rows, dim, 0.02, generator=torch.Generator().manual_seed(9), block_rows=block_rows))
    assert all(block.shape[1] == dim for block in blocks)
    assert torch.equal(torch.cat(blocks), whole)
