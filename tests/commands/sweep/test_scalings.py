"""`posemb sweep` takes the RoPE scaling flags: each line is `posemb inspect` of rope under that scaling."""

from __future__ import annotations

import json

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.position_oracles import linear_inv_freq, plain_inv_freq, yarn_inv_freq
from tests.refusals import check_refused

runner = CliRunner()
SMALL = ["--dim", "16", "--ctx", "256", "--batch", "2", "--seq-len", "8", "--max-offset", "3", "--device", "cpu"]


def lines(*args: str) -> list[dict]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_every_line_is_inspect_of_rope_under_each_scaling_and_factor():
    found = lines("sweep", "--schemes", "rope,sinusoidal", "--rope-scaling", "none,linear,yarn", "--rope-factor",
                  "2,4", "--beta-fast", "16", *SMALL)
    shown = [(line["config"]["scheme"], line["config"]["rope_scaling"], line["config"]["rope_factor"])
             for line in found]
    assert shown == [("rope", "none", 1.0), ("rope", "linear", 2.0), ("rope", "linear", 4.0), ("rope", "yarn", 2.0),
                     ("rope", "yarn", 4.0), ("sinusoidal", "none", 1.0)]
    for line, (scheme, kind, factor) in zip(found, shown, strict=True):
        flags = ["--scheme", scheme, *SMALL, *(["--beta-fast", "16"] if scheme == "rope" else [])]
        if kind != "none":
            flags += ["--rope-scaling", kind, "--rope-factor", f"{factor:g}"]
        (expected,) = lines("inspect", *flags, "--no-plot")
        assert line == expected
    inv_freq = {(kind, factor): [band["inv_freq"] for band in line["bands"]]
                for line, (scheme, kind, factor) in zip(found, shown, strict=True) if scheme == "rope"}
    np.testing.assert_allclose(inv_freq[("none", 1.0)], plain_inv_freq(16, 10_000.0), rtol=1e-12)
    np.testing.assert_allclose(inv_freq[("linear", 4.0)], linear_inv_freq(16, 10_000.0, 4), rtol=1e-12)
    np.testing.assert_allclose(inv_freq[("yarn", 2.0)], yarn_inv_freq(16, 10_000.0, 2, 128, beta_fast=16), rtol=1e-12)


def test_the_table_names_each_scaling():
    result = runner.invoke(app, ["sweep", "--schemes", "rope", "--rope-scaling", "none,yarn", "--rope-factor", "4",
                                 *SMALL], env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert "rope yarn:4" in result.stdout and all(len(line) <= 80 for line in result.stdout.splitlines())


@pytest.mark.parametrize("args, needle", [
    (["--schemes", "learned", "--rope-scaling", "yarn", "--rope-factor", "2"], "--rope-scaling is read only by rope"),
    (["--schemes", "sinusoidal", "--beta-fast", "16"], "--beta-fast is read only by rope"),
    (["--schemes", "rope", "--rope-scaling", "yarn"], "--rope-scaling yarn needs --rope-factor"),
    (["--schemes", "rope", "--rope-factor", "2"], "--rope-factor needs a --rope-scaling other than none"),
    (["--schemes", "rope", "--rope-scaling", "wide", "--rope-factor", "2"], "--rope-scaling: 'wide' is not one of"),
    (["--schemes", "rope", "--rope-scaling", "yarn", "--rope-factor", "0.5"], "--rope-factor must be 1 or more"),
    (["--schemes", "rope", "--ctx", "64", "--rope-scaling", "yarn", "--rope-factor", "2", "--original-ctx", "100"],
     "--original-ctx 100 exceeds --ctx 64"),
])
def test_refusals(args, needle):
    check_refused(["sweep", *args], needle)
