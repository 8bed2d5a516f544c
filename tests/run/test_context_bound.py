"""inspect's ``context_bound`` for rope (scaled or not) and sinusoidal, against a NumPy loop over distances."""

from __future__ import annotations

import json
import math

import numpy as np
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.position_oracles import plain_inv_freq

runner = CliRunner()


def loop_first_negative(theta, limit):
    for m in range(1, limit):
        if sum(math.cos(m * t) for t in theta) < 0:
            return m
    return None


def bound_of(*args):
    result = runner.invoke(app, ["inspect", *args, "--device", "cpu", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["context_bound"]


def test_rope_head_128_base_10000():
    bound = bound_of("--scheme", "rope", "--dim", "128", "--ctx", "256")
    assert bound["first_negative"] == 1707 == loop_first_negative(plain_inv_freq(128, 10000.0), 2000)
    assert loop_first_negative(plain_inv_freq(128, bound["min_base"]), 256) is None
    assert loop_first_negative(plain_inv_freq(128, bound["min_base"] * (1 - 3e-4)), 256) is not None


def test_scaled_rope_uses_the_frequencies_in_use():
    bound = bound_of("--scheme", "rope", "--dim", "32", "--ctx", "512", "--rope-scaling", "linear",
                     "--rope-factor", "4")
    scaled = np.array(plain_inv_freq(32, 10000.0)) / 4
    assert bound["first_negative"] == loop_first_negative(scaled, 70000)
    assert loop_first_negative(np.array(plain_inv_freq(32, bound["min_base"])) / 4, 512) is None


def test_sinusoidal_sum_is_the_dot_product_of_rows():
    bound = bound_of("--scheme", "sinusoidal", "--dim", "16", "--ctx", "128")
    theta = 1.0 / 10000.0 ** (2.0 * np.arange(8) / 16)
    assert bound["first_negative"] == loop_first_negative(theta, 70000)
    assert bound["ctx"] == 128 and bound["scanned_to"] == 65536


def test_table_line_names_the_bound():
    result = runner.invoke(app, ["inspect", "--scheme", "rope", "--dim", "128", "--ctx", "2048", "--device", "cpu",
                                 "--no-plot"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "first negative at m = 1,707 (does not cover ctx=2,048)" in result.stdout
