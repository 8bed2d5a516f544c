"""RoPE: rotation in both layouts, its figures, bands after scaling, against loop oracles."""

import dataclasses
import json
import math

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from posemb_cli.core.embeddings import EmbeddingComposer, TokenEmbedding
from posemb_cli.core.schemes import build_scheme
from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
from posemb_cli.core.schemes.rope_scaling import RopeScaling
from posemb_cli.measures.decay import long_term_decay
from posemb_cli.run.config import make_config, with_position_settings
from typer.testing import CliRunner

from tests.conftest import DEVICES
from tests.position_oracles import plain_inv_freq, roformer_bound, rotate, yarn_inv_freq

runner = CliRunner()


def rope_config(**flags):
    config = make_config(dim=flags.pop("dim", 32), ctx=flags.pop("ctx", 96), vocab=50, batch=2, seq_len=16,
                         device="cpu", max_offset=flags.pop("max_offset", 4))
    return with_position_settings(config, schemes=("rope",), **flags)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("head_dim", [32, 8])
def test_rotation_matches_the_complex_oracle(layout, head_dim, device):
    rope = RotaryPositionalEmbedding(64, 32, head_dim, 10000.0, layout=layout, device=device,
                                     dtype=torch.float64)
    x = torch.randn(5, 32, dtype=torch.float64)
    positions = torch.tensor([0, 1, 7, 40, 63])
    got = rope.rotate(x.to(device), positions.to(device)).cpu().numpy()
    inv = plain_inv_freq(head_dim, 10000.0)
    want = np.stack([rotate(x[i].numpy(), int(positions[i]), inv, head_dim, layout) for i in range(5)])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_scaled_rotation_uses_scaled_frequencies_and_attention_factor(layout):
    scaling = RopeScaling("yarn", factor=4.0, original_ctx=32)
    rope = RotaryPositionalEmbedding(128, 16, 16, 10000.0, layout=layout, scaling=scaling, dtype=torch.float64)
    x = torch.randn(16, dtype=torch.float64)
    got = rope.rotate(x[None], torch.tensor([50])).numpy()[0]
    factor = 0.1 * math.log(4.0) + 1
    want = rotate(x.numpy(), 50, yarn_inv_freq(16, 10000.0, 4.0, 32), 16, layout) * factor
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_score_depends_on_offset_only(layout):
    rope = RotaryPositionalEmbedding(512, 32, 16, layout=layout, dtype=torch.float64)
    q, k = torch.randn(32, dtype=torch.float64), torch.randn(32, dtype=torch.float64)
    m = torch.tensor([3, 103, 403])
    scores = rope.pair_scores(q, k, m, m - 3)
    assert float(scores.max() - scores.min()) < 1e-12
    inv = plain_inv_freq(16, 10000.0)  # the score itself, from the complex-rotation oracle
    for index, position in enumerate(m.tolist()):
        want = rotate(q.numpy(), position, inv, 16, layout) @ rotate(k.numpy(), position - 3, inv, 16, layout)
        assert float(scores[index]) == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert abs(float(scores[0]) - float(rope.pair_scores(q, k, torch.tensor([10]), torch.tensor([10]))[0])) > 1e-6


def test_composer_output_is_the_token_vectors_and_no_parameters():
    config = rope_config()
    rope = build_scheme("rope", config, device=torch.device("cpu"), dtype=torch.float32)
    token = TokenEmbedding(50, 32, generator=torch.Generator().manual_seed(0))
    ids = torch.randint(0, 50, (2, 16))
    with torch.no_grad():
        assert torch.equal(EmbeddingComposer(token, rope)(ids), token(ids))
    assert sum(p.numel() for p in rope.parameters()) == 0
    assert rope(5000).shape == (5000, 32)  # any length is served: nothing to look up


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("scaling", ["none", "linear", "yarn"])
def test_inspect_json_figures(layout, scaling):
    flags = ["--scheme", "rope", "--dim", "32", "--head-dim", "16", "--ctx", "96", "--vocab", "50", "-b", "2",
             "-t", "16", "-k", "4", "--rope-layout", layout, "--rope-scaling", scaling, "--device", "cpu"]
    if scaling != "none":
        flags += ["--rope-factor", "2"]
    result = runner.invoke(app, ["inspect", *flags, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    factor = 1.0 if scaling == "none" else 2.0
    want = {"none": plain_inv_freq(16, 1e4), "linear": [f / 2 for f in plain_inv_freq(16, 1e4)],
            "yarn": yarn_inv_freq(16, 1e4, 2.0, 48)}[scaling]
    assert [band["pair"] for band in doc["bands"]] == list(range(8))
    for band, theta, plain in zip(doc["bands"], want, plain_inv_freq(16, 1e4)):
        assert band["inv_freq"] == pytest.approx(theta, rel=1e-12)
        assert band["wavelength"] == pytest.approx(2 * math.pi / theta, rel=1e-12)
        assert ("inv_freq_unscaled" in band) == (scaling != "none")
        if scaling != "none":
            assert band["inv_freq_unscaled"] == pytest.approx(plain, rel=1e-12)
    assert doc["full_turn_pairs"] == sum(96 * theta >= 2 * math.pi for theta in want)
    assert doc["attention_factor"] == pytest.approx(0.1 * math.log(factor) + 1 if scaling == "yarn" else 1.0)
    assert doc["acts_on"] == "queries and keys" and doc["params"]["position"] == 0
    assert doc["config"]["head_dim"] == 16 and doc["config"]["rope_layout"] == layout
    # Neighbour similarity: cos(R_p v, R_{p+k} v) = sum_i |v_i|^2 cos(k theta_i) / |v|^2, averaged over probes.
    config = dataclasses.replace(rope_config(head_dim=16, rope_layout=layout, rope_scaling=scaling,
                                             rope_factor=factor), max_offset=4)
    probes = build_scheme("rope", config, device=torch.device("cpu"), dtype=torch.float32).probes.double().numpy()
    weights = probes.reshape(len(probes), 2, 8, 2) if layout == "interleaved" else probes.reshape(len(probes), 2, 2, 8)
    energy = (weights ** 2).sum(-1 if layout == "interleaved" else -2)  # (N, heads, pairs)
    for row in doc["neighbour_similarity"]:
        k = row["offset"]
        cos = (energy * np.cos(k * np.asarray(want))).sum((1, 2)) / energy.sum((1, 2))
        assert row["mean"] == pytest.approx(cos.mean(), abs=1e-5)
        assert row["max"] - row["min"] < 1e-5  # the same at every p: a function of k alone
    assert doc["relative_deviation"] < 1e-6 * doc["relative_scale"]
    for point in doc["long_term_decay"]:
        assert point["bound"] == pytest.approx(roformer_bound(want, point["distance"]), rel=1e-9)


def test_long_term_decay_grid_is_log_spaced_to_ctx():
    points = long_term_decay(plain_inv_freq(64, 1e4), 512)
    distances = [p.distance for p in points]
    assert distances[0] == 1 and distances[-1] == 512 and distances == sorted(set(distances))
    ratios = np.diff(np.log(distances))
    assert ratios.max() < 3 * np.median(ratios)  # evenly spread on a log scale, not linear
    assert points[0].bound > points[-1].bound  # the bound decays with distance


def test_dynamic_fingerprint_beyond_ctx_uses_longer_length():
    from tests.position_oracles import dynamic_inv_freq

    rope = RotaryPositionalEmbedding(64, 8, 8, scaling=RopeScaling("dynamic", 2.0, 32), dtype=torch.float64)
    # At its own context (64 > original 32) the frequencies are already stretched, by the oracle's formula.
    np.testing.assert_allclose(rope.frequencies(64).numpy(), dynamic_inv_freq(8, 1e4, 2.0, 32, 64), rtol=1e-12)
    np.testing.assert_allclose(rope.inv_freq.numpy(), dynamic_inv_freq(8, 1e4, 2.0, 32, 64), rtol=1e-12)
    np.testing.assert_allclose(rope.frequencies(32).numpy(), plain_inv_freq(8, 1e4), rtol=1e-12)  # within training
    longer = rope.frequencies(128).numpy()
    np.testing.assert_allclose(longer, dynamic_inv_freq(8, 1e4, 2.0, 32, 128), rtol=1e-12)
