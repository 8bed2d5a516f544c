"""EmbeddingComposer: the gather-into-output path equals ``weight[ids] + positions`` and keeps autograd."""

from __future__ import annotations

import pytest
import torch
from posemb_cli.core.embeddings import EmbeddingComposer, TokenEmbedding
from posemb_cli.core.schemes import build_scheme, scheme_names
from posemb_cli.core.schemes.learned import LearnedPositionalEmbedding
from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding
from posemb_cli.run.config import make_config

from tests.oracles import sinusoidal_table

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
V, D, L, B, T = 50, 12, 24, 3, 20


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def learned_composer(device="cpu", dtype=torch.float32):
    generator = torch.Generator().manual_seed(0)
    token = TokenEmbedding(V, D, 0.5, generator=generator, device=device, dtype=dtype)
    position = LearnedPositionalEmbedding(L, D, 0.5, generator=generator, device=device, dtype=dtype)
    return EmbeddingComposer(token, position)


def oracle(composer, ids):
    """Row by row, written out: out[b, t] = token_weight[ids[b, t]] + position_row[t]."""
    weight = composer.token.weight.detach().cpu()
    table = composer.position.table().detach().cpu()
    out = torch.empty(ids.shape[0], ids.shape[1], weight.shape[1], dtype=weight.dtype)
    for b in range(ids.shape[0]):
        for t in range(ids.shape[1]):
            out[b, t] = weight[ids[b, t]] + table[t]
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_no_grad_path_matches_oracle(dtype):
    composer = learned_composer(dtype=dtype)
    ids = torch.randint(0, V, (B, T))
    with torch.no_grad():
        got = composer(ids)
    assert got.dtype == dtype and not got.requires_grad
    torch.testing.assert_close(got, oracle(composer, ids), rtol=0, atol=0)


def test_out_is_written_and_returned():
    composer = learned_composer()
    ids = torch.randint(0, V, (B, T))
    out = torch.full((B, T, D), float("nan"))
    with torch.no_grad():
        got = composer(ids, out=out)
    assert got is out
    torch.testing.assert_close(out, oracle(composer, ids), rtol=0, atol=0)


def test_grad_path_gives_the_gradients_of_the_sum():
    composer = learned_composer()
    ids = torch.tensor([[1, 2, 1, 3], [3, 3, 0, 1]])
    output = composer(ids)
    assert output.requires_grad
    torch.testing.assert_close(output.detach(), oracle(composer, ids), rtol=0, atol=0)
    (output * 2.0).sum().backward()
    expected_token = torch.zeros(V, D)
    for i in ids.flatten().tolist():
        expected_token[i] += 2.0
    expected_position = torch.zeros(L, D)
    expected_position[:4] = 2.0 * ids.shape[0]
    torch.testing.assert_close(composer.token.weight.grad, expected_token)
    torch.testing.assert_close(composer.position.embedding.weight.grad, expected_position)


def test_out_is_refused_while_autograd_records():
    composer = learned_composer()
    with pytest.raises(RuntimeError, match="no_grad"):
        composer(torch.zeros(B, T, dtype=torch.long), out=torch.empty(B, T, D))


def test_out_of_the_wrong_shape_is_refused():
    composer = learned_composer()
    with torch.no_grad(), pytest.raises(ValueError, match="contiguous"):
        composer(torch.zeros(B, T, dtype=torch.long), out=torch.empty(B, T + 1, D))


def test_sinusoidal_positions_are_added_in_place():
    generator = torch.Generator().manual_seed(1)
    composer = EmbeddingComposer(TokenEmbedding(V, D, generator=generator), SinusoidalPositionalEmbedding(L, D))
    ids = torch.randint(0, V, (B, T))
    with torch.no_grad():
        torch.testing.assert_close(composer(ids), oracle(composer, ids), rtol=0, atol=0)


@pytest.mark.parametrize("name", scheme_names())
def test_every_registered_scheme_gives_the_same_output_with_and_without_grad(name):
    config = make_config(dim=16, ctx=32, vocab=V, batch=2, seq_len=20)
    token = TokenEmbedding(V, 16, generator=torch.Generator().manual_seed(0))
    composer = EmbeddingComposer(token, build_scheme(name, config, device=torch.device("cpu"), dtype=torch.float32))
    ids = torch.randint(0, V, (2, 20))
    recorded = composer(ids)
    with torch.no_grad():
        fast = composer(ids)
    torch.testing.assert_close(fast, recorded.detach(), rtol=0, atol=0)
    # And both equal the lesson's sum, written out: token rows plus the additive table (nothing for the others).
    expected = token.weight.detach()[ids]  # (2, 20, 16)
    if name == "sinusoidal":
        expected = expected + torch.from_numpy(sinusoidal_table(20, 16)).float()
    elif name == "learned":
        expected = expected + composer.position.embedding.weight.detach()[:20]
    torch.testing.assert_close(fast, expected, rtol=0, atol=1e-6)


@CUDA
def test_cuda_fast_path_matches_oracle():
    composer = learned_composer(device="cuda")
    ids = torch.randint(0, V, (B, T))
    with torch.no_grad():
        got = composer(ids.cuda())
    torch.testing.assert_close(got.cpu(), oracle(composer, ids), rtol=0, atol=0)
