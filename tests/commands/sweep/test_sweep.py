"""`posemb sweep`: JSON lines identical to `posemb inspect --json`, the table, and up-front refusals."""

from __future__ import annotations

import json

import posemb_cli.run.analysis
import pytest
from posemb_cli.cli.app import app
from posemb_cli.request.lists import parse_float_list, parse_int_list
from typer.testing import CliRunner

runner = CliRunner()
COMMON = ["--vocab", "100", "--batch", "2", "--device", "cpu"]


def test_json_lines_equal_inspect_for_every_configuration():
    result = runner.invoke(app, ["sweep", "--dim", "8,12", "--ctx", "32,64", "--base", "10000,500",
                                 "--schemes", "learned,sinusoidal", "--max-offset", "4", *COMMON, "--json"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 2 * 2 * 2 * 2
    seen = set()
    for line in lines:
        document = json.loads(line)
        config = document["config"]
        seen.add((config["dim"], config["ctx"], config["base"], config["scheme"]))
        reads_base = config["scheme"] != "learned"  # inspect refuses a --base its scheme does not read
        single = runner.invoke(app, [
            "inspect", "--scheme", config["scheme"], "--dim", str(config["dim"]), "--ctx", str(config["ctx"]),
            *(["--base", str(config["base"])] if reads_base else []), "--max-offset", "4", *COMMON, "--json"])
        assert single.exit_code == 0, single.output
        inspected = json.loads(single.stdout)
        if not reads_base:  # the sweep records the base it was given; nothing of learned depends on it
            inspected["config"]["base"] = config["base"]
        assert inspected == document
    assert seen == {(d, c, b, s) for d in (8, 12) for c in (32, 64) for b in (10000.0, 500.0)
                    for s in ("learned", "sinusoidal")}


def test_same_flags_give_byte_identical_json_lines():
    args = ["sweep", "--dim", "8,16", "--ctx", "32", "--schemes", "learned,sinusoidal,rope,alibi,none",
            "--max-offset", "4", "--seed", "5", *COMMON, "--json"]
    first, second = runner.invoke(app, args), runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert len(first.stdout.splitlines()) == 2 * 5
    assert first.stdout == second.stdout


def test_table_output_has_a_row_per_configuration():
    result = runner.invoke(app, ["sweep", "--dim", "8", "--ctx", "32,48", *COMMON])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("learned") == 2 and result.stdout.count("sinusoidal") == 2
    assert "cos k=1" in result.stdout


@pytest.mark.parametrize("args,needle", [
    (["--dim", "64,0"], "--dim"),
    (["--dim", "64,x"], "--dim"),
    (["--ctx", "512,abc"], "--ctx"),
    (["--ctx", "512,"], "--ctx"),
    (["--base", "10000,inf"], "--base"),
    (["--base", "10000,1"], "--base"),
    (["--schemes", "sinusoidal,rotary9"], "--schemes"),
    (["--ctx", "512,8"], "--max-offset 8 must be below --ctx 8"),
    (["--ctx", "512,100", "--seq-len", "200"], "--seq-len 200 exceeds --ctx 100"),
    (["--device", "tpu"], "--device"),
    (["--dim", "64,100000", "--ctx", "512,1000000"], "GiB"),
])
def test_bad_value_anywhere_is_refused_before_any_work(monkeypatch, args, needle):
    def no_work(*args, **kwargs):
        raise AssertionError("inspect ran before every value was checked")

    monkeypatch.setattr(posemb_cli.run.analysis, "inspect", no_work)
    for json_flag in ([], ["--json"]):
        result = runner.invoke(app, ["sweep", *args, *json_flag])
        assert result.exit_code == 2, result.output
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], result.stderr


def test_list_parsers():
    assert parse_int_list("--dim", " 64, 128 ") == (64, 128)
    assert parse_float_list("--base", "1e4,500000") == (10000.0, 500000.0)
