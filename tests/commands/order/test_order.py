"""`posemb order`: attention is permutation-equivariant without position, and every scheme breaks it."""

import json

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from posemb_cli.commands.order.measure import _permutation, run_order
from posemb_cli.core.attention import attention_weights
from posemb_cli.run.config import make_config, with_position_settings
from typer.testing import CliRunner

from tests.oracles import sinusoidal_table
from tests.position_oracles import paper_slopes

runner = CliRunner()
SCHEMES = ("none", "learned", "sinusoidal", "rope", "alibi")


def numpy_attention(x, weights, bias=None):
    """One head, no mask, in float64 NumPy: softmax(q k^T / sqrt(D) + bias) v."""
    q, k, v = x @ weights[0], x @ weights[1], x @ weights[2]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(x.shape[-1])
    if bias is not None:
        scores = scores + bias
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    return (scores / scores.sum(-1, keepdims=True)) @ v


def rms(x):
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6)


def small_config(dtype="float64"):
    config = make_config(dim=16, ctx=64, vocab=30, batch=2, seq_len=12, seed=5, device="cpu", dtype=dtype)
    return with_position_settings(config, schemes=SCHEMES, heads=4)


@pytest.mark.parametrize("dtype,level", [("float64", 1e-12), ("float32", 1e-5)])
def test_equivariant_without_position_and_not_with_each_scheme(dtype, level):
    report = run_order(small_config(dtype), SCHEMES)
    results = {row["scheme"]: row for row in report.results}
    assert results["none"]["max_abs_diff"] < level * results["none"]["output_max_abs"]
    assert results["none"]["equivariant"]
    for name in SCHEMES[1:]:
        assert results[name]["relative_diff"] > 1e-2, name
        assert not results[name]["equivariant"], name


def test_figures_match_a_numpy_oracle():
    config = small_config()
    report = run_order(config, ("none", "sinusoidal", "alibi"))
    got = {row["scheme"]: row["max_abs_diff"] for row in report.results}
    generator = torch.Generator().manual_seed(config.seed)
    token = torch.empty(30, 16, dtype=torch.float32).normal_(0.0, 0.02, generator=generator).double().numpy()
    ids = torch.randint(0, 30, (2, 12), generator=torch.Generator().manual_seed(config.seed + 2)).numpy()
    weights = attention_weights(16, seed=config.seed + 4, dtype=torch.float64).numpy()
    perm = _permutation(12, config.seed + 6).numpy()
    assert not np.array_equal(perm, np.arange(12))
    positions = np.arange(12)
    bias = -paper_slopes(4)[0] * np.abs(positions[:, None] - positions[None, :])
    for name, pe, extra in (("none", 0.0, None), ("sinusoidal", sinusoidal_table(12, 16), None),
                            ("alibi", 0.0, bias)):
        plain = numpy_attention(rms(token[ids] + pe), weights, extra)
        permuted = numpy_attention(rms(token[ids[:, perm]] + pe), weights, extra)
        want = np.abs(permuted - plain[:, perm]).max()
        assert got[name] == pytest.approx(want, rel=1e-6, abs=1e-12), name


def test_order_json_contract():
    result = runner.invoke(app, ["order", "--dim", "16", "--ctx", "32", "--vocab", "30", "-b", "2", "-t", "8",
                                 "--heads", "4", "--device", "cpu", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    doc = json.loads(result.stdout)
    assert list(doc) == ["schema", "config", "results"] and doc["schema"] == "posemb.order/1"
    assert doc["config"]["schemes"] == list(SCHEMES) and doc["config"]["dim"] == 16
    assert [row["scheme"] for row in doc["results"]] == list(SCHEMES)
    for row in doc["results"]:
        assert {"scheme", "max_abs_diff"} <= set(row) and isinstance(row["max_abs_diff"], float)
    again = runner.invoke(app, ["order", "--dim", "16", "--ctx", "32", "--vocab", "30", "-b", "2", "-t", "8",
                                "--heads", "4", "--device", "cpu", "--json"])
    assert again.stdout == result.stdout  # same flags and seed: byte-identical


def test_order_table_output():
    result = runner.invoke(app, ["order", "--dim", "16", "--ctx", "32", "--vocab", "30", "-b", "2", "-t", "8",
                                 "--schemes", "none,rope", "--device", "cpu"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "equivariant" in result.stdout and "order-sensitive" in result.stdout
    assert "Traceback" not in result.output


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_an_equivariant_gap_prints_as_its_rounding_bound(dtype):
    """The none row's gap is rounding (its digits are the CPU's kernels): people see the bound and no bar, never
    the digits; JSON keeps them."""
    import io

    from posemb_cli.commands.order.render import render_order
    from rich.console import Console

    report = run_order(small_config(dtype), SCHEMES)
    row = next(row for row in report.results if row["scheme"] == "none")
    level = float(np.finfo(np.float64 if dtype == "float64" else np.float32).eps) * 1000
    assert row["rounding_level"] == pytest.approx(level, rel=1e-12) and row["equivariant"]
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(render_order(report))
    line = next(line for line in console.file.getvalue().splitlines() if line.strip().startswith("none"))
    cells = line.split()
    expected = ["0", "0"] if row["max_abs_diff"] == 0 else [f"<{level * row['output_max_abs']:.2g}", f"<{level:.2g}"]
    assert cells[2:4] == expected, line
    assert "█" not in line
    learned = next(line for line in console.file.getvalue().splitlines() if line.strip().startswith("learned"))
    assert "<" not in learned and "█" in learned  # a real gap keeps its digits and its bar
