"""RoPE's extrapolation verdict agrees with extend: pairs that never turn a full circle within ctx fail it."""

import json
import math

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


@pytest.mark.parametrize(("dim", "ctx", "base"), [(64, 512, 10_000.0), (32, 2048, 500_000.0), (16, 8192, 100.0)])
def test_rope_extrapolation_counts_the_pairs_that_never_turn(dim, ctx, base):
    result = runner.invoke(app, ["inspect", "--scheme", "rope", "--dim", str(dim), "--ctx", str(ctx), "--base",
                                 str(base), "--seq-len", "16", "--json"])
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)["scorecard"]["extrapolation"]
    theta = base ** (-np.arange(0, dim, 2) / dim)
    unturned = [i for i, t in enumerate(theta) if ctx * t < 2 * math.pi]  # a plain scan of the pairs
    assert card["pass"] is (not unturned)
    if unturned:
        assert card["value"] == ctx and card["threshold"] == 2 * ctx
        assert f"{len(unturned)} of {dim // 2} rotary pairs" in card["note"]
    else:
        assert card["value"] == 2 * ctx


def test_a_table_scheme_is_judged_as_before():
    result = runner.invoke(app, ["inspect", "--scheme", "sinusoidal", "--dim", "32", "--ctx", "256", "--json"])
    card = json.loads(result.stdout)["scorecard"]["extrapolation"]
    assert card["pass"] is True and card["judged"] == "formula"
