"""`posemb padding`: left padding against a NumPy loop, and which schemes stay invariant."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from posemb_cli.commands.padding.measure import run_padding
from posemb_cli.core.attention import attention_weights
from posemb_cli.run.config import make_config, with_position_settings
from typer.testing import CliRunner

from tests.oracles import sinusoidal_table
from tests.position_oracles import paper_slopes, plain_inv_freq
from tests.refusals import check_refused
from tests.schema_files import validate

runner = CliRunner()
SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi")


def small_config(dtype="float64"):
    config = make_config(dim=8, ctx=32, vocab=30, batch=2, seq_len=5, seed=3, device="cpu", dtype=dtype)
    return with_position_settings(config, schemes=SCHEMES, heads=4)


def rms(x):
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6)


def rope_rows(x, positions, inv_freq):
    """Interleaved RoPE by a loop over pairs: (T, D) rotated at (T,) positions."""
    out = x.copy()
    for t, m in enumerate(positions):
        for i, f in enumerate(inv_freq):
            c, s = np.cos(m * f), np.sin(m * f)
            a, b = x[t, 2 * i], x[t, 2 * i + 1]
            out[t, 2 * i], out[t, 2 * i + 1] = a * c - b * s, a * s + b * c
    return out


def loop_attention(x, weights, real, positions, *, inv_freq=None, slope=None):
    """One head in a plain loop: each query attends to the real keys only."""
    q, k, v = x @ weights[0], x @ weights[1], x @ weights[2]
    if inv_freq is not None:
        q, k = rope_rows(q, positions, inv_freq), rope_rows(k, positions, inv_freq)
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        scores = {j: q[i] @ k[j] / np.sqrt(x.shape[1]) for j in range(x.shape[0]) if real[j]}
        if slope is not None:
            scores = {j: s - slope * abs(positions[i] - positions[j]) for j, s in scores.items()}
        top = max(scores.values())
        weights_j = {j: np.exp(s - top) for j, s in scores.items()}
        total = sum(weights_j.values())
        out[i] = sum(w / total * v[j] for j, w in weights_j.items())
    return out


def test_figures_match_a_numpy_loop():
    config, pad = small_config(), 3
    report = run_padding(config, SCHEMES, pad)
    got = {(r["scheme"], r["position_ids"]): r["max_abs_diff"] for r in report.results}
    token = torch.empty(30, 8).normal_(0.0, 0.02, generator=torch.Generator().manual_seed(3)).double().numpy()
    ids = torch.randint(0, 30, (2, 5), generator=torch.Generator().manual_seed(5)).numpy()
    learned = torch.empty(32, 8).normal_(0.0, 0.02, generator=torch.Generator().manual_seed(4)).double().numpy()
    weights = attention_weights(8, seed=7, dtype=torch.float64).numpy()
    tables = {"none": np.zeros((32, 8)), "learned": learned, "sinusoidal": sinusoidal_table(32, 8),
              "rope": np.zeros((32, 8)), "alibi": np.zeros((32, 8))}
    real = [False] * pad + [True] * 5
    naive, from_mask = list(range(pad + 5)), [1] * pad + list(range(5))
    for name in SCHEMES:
        extra = {"inv_freq": plain_inv_freq(8, 10000.0)} if name == "rope" else {}
        extra = {"slope": paper_slopes(4)[0]} if name == "alibi" else extra
        for kind, where in (("arange", naive), ("from_mask", from_mask)):
            want = 0.0
            for row in range(2):
                padded_ids = [0] * pad + list(ids[row])
                x = rms(token[padded_ids] + tables[name][where])
                plain = loop_attention(rms(token[ids[row]] + tables[name][:5]), weights, [True] * 5, list(range(5)),
                                       **extra)
                out = loop_attention(x, weights, real, where, **extra)[pad:]
                want = max(want, np.abs(out - plain).max())
            assert got[(name, kind)] == pytest.approx(want, rel=1e-6, abs=1e-12), (name, kind)


def test_absolute_tables_shift_with_arange_and_every_scheme_is_invariant_from_the_mask():
    report = run_padding(small_config("float32"), SCHEMES, 6)
    result = {(r["scheme"], r["position_ids"]): r for r in report.results}
    for name in SCHEMES:
        assert result[(name, "from_mask")]["invariant"], name
    for name in ("learned", "sinusoidal"):
        assert not result[(name, "arange")]["invariant"] and result[(name, "arange")]["relative_diff"] > 1e-2
    for name in ("none", "rope", "alibi"):  # relative or no position: a common shift cancels
        assert result[(name, "arange")]["invariant"], name


def test_padding_json_and_tables():
    args = ["padding", "--dim", "16", "--ctx", "32", "--vocab", "30", "-b", "2", "-t", "8", "--pad", "5",
            "--heads", "4", "--device", "cpu"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    validate(doc, "padding")
    assert list(doc) == ["schema", "config", "results"] and doc["config"]["pad"] == 5
    assert [(r["scheme"], r["position_ids"]) for r in doc["results"]][:2] == [("none", "arange"),
                                                                              ("none", "from_mask")]
    assert runner.invoke(app, [*args, "--json"]).stdout == result.stdout
    table = runner.invoke(app, args, env={"COLUMNS": "160"})
    assert table.exit_code == 0, table.output
    assert "rows 5..5+T-1" in table.stdout and "the shift by 5 cancels" in table.stdout


def test_a_change_within_rounding_prints_its_bound_not_its_digits():
    """The digits of a change within rounding are this machine's arithmetic: the table prints the bound the verdict
    used (relative <= rounding_level, so max |change| <= rounding_level * output_max_abs), read from the JSON."""
    from posemb_cli.render.format import general

    args = ["padding", "--dim", "16", "--ctx", "32", "--vocab", "30", "-b", "2", "-t", "8", "--pad", "5",
            "--device", "cpu", "--schemes", "rope,learned"]
    doc = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    table = runner.invoke(app, args, env={"COLUMNS": "200"}).stdout
    rows = {tuple(line.replace("│", " ").split()[:2]): line.replace("│", " ").split() for line in table.splitlines()
            if line.startswith("│")}
    for result in doc["results"]:
        cells = rows[result["scheme"], result["position_ids"]]
        if result["invariant"] and result["max_abs_diff"] > 0:
            rounding = result["rounding_level"]
            assert cells[2:4] == [f"<{general(rounding * result['output_max_abs'])}", f"<{general(rounding)}"]
        else:
            assert cells[2:4] == [general(result["max_abs_diff"]), general(result["relative_diff"])]
    assert any(r["invariant"] and r["max_abs_diff"] > 0 for r in doc["results"])  # rope under arange
    assert "<x: a change within the dtype's rounding" in table


@pytest.mark.parametrize(("args", "needle"), [
    (["--pad", "0"], "--pad"),
    (["--pad", "30", "--ctx", "32", "-t", "8"], "--pad 30"),
    (["--ctx", "1"], "--ctx 1"),
    (["--schemes", "learned,bogus"], "--schemes"),
])
def test_bad_input_is_refused(args, needle):
    check_refused(["padding", "--device", "cpu", *args], needle)
