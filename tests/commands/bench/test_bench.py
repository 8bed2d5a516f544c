"""`posemb bench`: the JSON contract, figures against their definitions, and refusals. No timing asserts."""

from __future__ import annotations

import json
import statistics

import pytest
from posemb_cli.cli.app import app
from posemb_cli.commands.bench.run import bench_configs, run_bench
from posemb_cli.commands.bench.timing import Timing, time_side_by_side
from posemb_cli.core.schemes import scheme_names
from typer.testing import CliRunner

runner = CliRunner()
SMALL = ["--ctx", "32", "--batch", "2", "--vocab", "100", "--repeats", "2", "--warmup", "1", "--device", "cpu"]


def test_json_contract_and_figures():
    result = runner.invoke(app, ["bench", "--dim", "8,16", "--schemes", "learned,sinusoidal", *SMALL, "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["schema"] == "posemb.bench/1"
    config = document["config"]
    assert config["dims"] == [8, 16] and config["schemes"] == ["learned", "sinusoidal"]
    assert (config["ctx"], config["seq_len"], config["batch"], config["repeats"]) == (32, 32, 2, 2)
    assert [(r["scheme"], r["dim"]) for r in document["results"]] == [
        ("learned", 8), ("sinusoidal", 8), ("learned", 16), ("sinusoidal", 16)]
    for row in document["results"]:
        B, T, D = 2, 32, row["dim"]
        output = B * T * D * 4
        assert row["copy_bytes"] == 2 * output
        assert row["bytes_moved"] == 2 * output + T * D * 4 + B * T * 8  # rows read, out written, positions, ids
        assert row["tokens_per_s"] == pytest.approx(B * T / row["median_s"])
        assert row["bytes_per_s"] == pytest.approx(row["bytes_moved"] / row["median_s"])
        assert row["copy_bytes_per_s"] == pytest.approx(row["copy_bytes"] / row["copy_median_s"])
        assert row["fraction_of_copy"] == pytest.approx(row["bytes_per_s"] / row["copy_bytes_per_s"])
        assert row["min_s"] <= row["median_s"] <= row["max_s"]


def test_every_registered_scheme_can_be_timed():
    configs = bench_configs(dims=(8,), ctx=16, seq_len=None, batch=1, vocab=50, device="cpu")
    report = run_bench(configs, scheme_names(), warmup=0, repeats=1)
    assert [row["scheme"] for row in report.results] == list(scheme_names())


def test_table_output():
    result = runner.invoke(app, ["bench", "--dim", "8", *SMALL])
    assert result.exit_code == 0, result.output
    assert "of copy" in result.stdout and "sinusoidal" in result.stdout


def test_timing_statistics_against_statistics_module():
    samples = (0.5, 0.1, 0.3, 0.2, 0.4)
    timing = Timing(samples)
    assert timing.median == 0.3 and timing.min == 0.1 and timing.max == 0.5
    low, _, high = statistics.quantiles(samples, n=4, method="inclusive")
    assert timing.spread == pytest.approx((high - low) / 0.3)
    assert Timing((1.0,)).spread == 0.0


def test_side_by_side_calls_each_once_per_round():
    calls = {"a": 0, "b": 0}
    ticks = []

    def bump(name):
        calls[name] += 1

    timings = time_side_by_side({"a": lambda: bump("a"), "b": lambda: bump("b")}, warmup=2, repeats=3,
                                progress=lambda: ticks.append(1))
    assert calls == {"a": 5, "b": 5} and len(ticks) == 5
    assert len(timings["a"].samples) == 3 and len(timings["b"].samples) == 3


@pytest.mark.parametrize("args,needle", [
    (["--dim", "0"], "--dim"),
    (["--dim", "64,abc"], "--dim"),
    (["--dim", "64,,128"], "--dim"),
    (["--dim", "64,64"], "--dim"),
    (["--schemes", "learned,rotary9"], "--schemes"),
    (["--repeats", "0"], "--repeats"),
    (["--warmup", "-1"], "--warmup"),
    (["--ctx", "16", "--seq-len", "17"], "--seq-len 17 exceeds --ctx 16"),
    (["--dtype", "int8"], "--dtype"),
    (["--vocab", "1000000000", "--dim", "64,1000000"], "GiB"),
])
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_bad_input_is_refused(args, needle, json_flag):
    result = runner.invoke(app, ["bench", *args, *json_flag])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr


def test_a_broadcast_zero_position_is_counted_once():
    configs = bench_configs(dims=(8,), ctx=16, seq_len=None, batch=2, vocab=50, device="cpu")
    report = run_bench(configs, ("sinusoidal",) + (("none",) if "none" in scheme_names() else ()),
                       warmup=0, repeats=1)
    output = 2 * 16 * 8 * 4
    ids = 2 * 16 * 8
    moved = {row["scheme"]: row["bytes_moved"] for row in report.results}
    assert moved["sinusoidal"] == 2 * output + 16 * 8 * 4 + ids
    if "none" in moved:
        assert moved["none"] == 2 * output + 4 + ids  # one zero element, broadcast
