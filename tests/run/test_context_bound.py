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


def grid_below(base: float) -> float:
    """The grid base just below a grid base (200 a decade, three significant figures), computed here."""
    k = round(200 * math.log10(base)) - 1
    exponent = math.floor(math.log10(10 ** (k / 200))) - 2
    return round(10 ** (k / 200) / 10 ** exponent) * 10.0 ** exponent


def test_rope_head_128_base_10000():
    bound = bound_of("--scheme", "rope", "--dim", "128", "--ctx", "256")
    assert bound["first_negative"] == 1707 == loop_first_negative(plain_inv_freq(128, 10000.0), 2000)
    assert bound["covers"] is True and bound["ctx"] == 256
    assert loop_first_negative(plain_inv_freq(128, bound["min_base"]), 256) is None
    assert loop_first_negative(plain_inv_freq(128, grid_below(bound["min_base"])), 256) is not None
    assert bound["base_grid"]["per_decade"] == 200 and bound["base_grid"]["method"] == "scan"
    sums = [sum(math.cos(m * t) for t in plain_inv_freq(128, 10000.0)) for m in range(1, 256)]
    assert math.isclose(bound["dip"]["sum"], min(sums), abs_tol=1e-9)
    assert bound["dip"]["at"] == 1 + sums.index(min(sums))


def test_a_base_that_does_not_cover_names_its_dip():
    bound = bound_of("--scheme", "rope", "--dim", "128", "--head-dim", "128", "--ctx", "4096")
    theta = plain_inv_freq(128, 10000.0)
    sums = [sum(math.cos(m * t) for t in theta) for m in range(1, 4096)]
    assert bound["covers"] is False and bound["first_negative"] == 1707
    assert bound["dip"]["at"] == 1 + sums.index(min(sums))
    assert math.isclose(bound["dip"]["depth"], min(sums) / 64, abs_tol=1e-9)
    assert bound["min_base"] == 58200.0  # covers; the grid base below it does not (test_base_grid holds the rule)
    assert loop_first_negative(plain_inv_freq(128, 58200.0), 4096) is None
    assert loop_first_negative(plain_inv_freq(128, 57500.0), 4096) is not None


def test_scaled_rope_uses_the_frequencies_in_use():
    bound = bound_of("--scheme", "rope", "--dim", "32", "--ctx", "512", "--rope-scaling", "linear",
                     "--rope-factor", "4")
    scaled = np.array(plain_inv_freq(32, 10000.0)) / 4
    assert bound["first_negative"] == loop_first_negative(scaled, 70000)
    assert loop_first_negative(np.array(plain_inv_freq(32, bound["min_base"])) / 4, 512) is None
    assert loop_first_negative(np.array(plain_inv_freq(32, grid_below(bound["min_base"]))) / 4, 512) is not None


def test_sinusoidal_sum_is_the_dot_product_of_rows():
    bound = bound_of("--scheme", "sinusoidal", "--dim", "16", "--ctx", "128")
    theta = 1.0 / 10000.0 ** (2.0 * np.arange(8) / 16)
    assert bound["first_negative"] == loop_first_negative(theta, 70000)
    assert bound["ctx"] == 128 and bound["scanned_to"] == 65536


def test_table_line_names_the_bound():
    result = runner.invoke(app, ["inspect", "--scheme", "rope", "--dim", "128", "--ctx", "2048", "--device", "cpu",
                                 "--no-plot"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "first negative at m = 1,707 (does not cover distances below 2,048)" in " ".join(result.stdout.split())
