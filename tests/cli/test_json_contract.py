"""The JSON contract of docs/json-contract.md, key by key, for every scheme and every subcommand."""

import json
import math

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
SMALL = ["--dim", "16", "--ctx", "32", "--vocab", "40", "-b", "2", "-t", "8", "-k", "3", "--device", "cpu"]
HEADS = ["--heads", "4"]  # read by alibi only: passed where alibi is among the schemes
ALL = ("learned", "sinusoidal", "rope", "alibi", "none")
CONFIG_KEYS = {"dim", "ctx", "vocab", "batch", "seq_len", "seed", "device", "dtype", "base", "init_std", "max_offset"}
EVERY_SCHEME = {"scheme", "shapes", "params", "neighbour_similarity", "table", "coverage", "relative_deviation",
                "long_term_decay", "scorecard"}
PROPERTIES = {"uniqueness", "boundedness", "relative", "extrapolation", "determinism"}


def run_json(*args) -> list[dict]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def check_no_non_finite(value, where="$"):
    """Strict JSON already refuses NaN; this also catches a float that slipped through as a string."""
    if isinstance(value, float):
        assert math.isfinite(value), where
    elif isinstance(value, str):
        assert value.lower() not in ("nan", "inf", "-inf", "infinity", "-infinity"), where
    elif isinstance(value, dict):
        for key, item in value.items():
            check_no_non_finite(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_no_non_finite(item, f"{where}[{index}]")


def check_scheme_object(entry: dict, name: str, *, scaled: bool = False) -> None:
    assert EVERY_SCHEME <= set(entry), EVERY_SCHEME - set(entry)
    assert entry["scheme"] == name
    assert entry["shapes"] == {"ids": [2, 8], "token": [2, 8, 16], "position": entry["shapes"]["position"],
                               "output": [2, 8, 16]}
    params = entry["params"]
    assert set(params) == {"token", "position", "total", "overhead"}
    assert params["token"] == 40 * 16 and params["total"] == params["token"] + params["position"]
    assert params["position"] == (32 * 16 if name == "learned" else 0)
    assert params["overhead"] == params["position"] / params["token"]
    if name == "alibi":  # every position's bias points the same way: the cosines are left out, not printed as 1
        assert entry["neighbour_similarity"] is None and "neighbour_similarity" in entry["left_out"]
    else:
        assert [row["offset"] for row in entry["neighbour_similarity"]] == [1, 2, 3]
        exact = {"exact"} if name in ("sinusoidal", "rope") else set()  # the formula's value, beside the measured
        assert all(set(row) == {"offset", "mean", "min", "max"} | ({"note"} if row["mean"] is None else exact)
                   for row in entry["neighbour_similarity"])
    assert entry["coverage"] == {"positions_measured": 32, "of": 32, "blocks": 1, "rule": "every position"}
    assert set(entry["table"]) == {"rows", "dim", "norm_min", "norm_mean", "norm_max"}
    assert entry["table"]["rows"] == 32 and entry["table"]["dim"] == 16
    assert isinstance(entry["relative_deviation"], float)
    assert set(entry["scorecard"]) == PROPERTIES
    for card in entry["scorecard"].values():
        assert set(card) >= {"value", "threshold", "pass", "note"}
        assert (card["pass"] is None) if card.get("applies") is False else isinstance(card["pass"], bool)
    frequency = name in ("sinusoidal", "rope")
    assert ("bands" in entry) == frequency
    if frequency:
        assert [band["pair"] for band in entry["bands"]] == list(range(8))
        want = {"pair", "inv_freq", "wavelength"} | ({"inv_freq_unscaled"} if scaled else set())
        assert all(set(band) == want for band in entry["bands"])
        assert entry["long_term_decay"] and all(set(p) == {"distance", "bound"} for p in entry["long_term_decay"])
    else:
        assert entry["long_term_decay"] is None  # the RoFormer bound needs frequencies
    assert ("slopes" in entry) == (name == "alibi")
    if name == "alibi":
        assert entry["slopes"] == [0.25, 0.0625, 0.015625, 0.00390625]  # 2^(-8i/H), H = 4 (ALiBi paper)
    assert ("attention_factor" in entry) == (name == "rope")
    check_no_non_finite(entry)


@pytest.mark.parametrize("name", ALL)
def test_inspect_object(name):
    doc, = run_json("inspect", "--scheme", name, *SMALL, *(HEADS if name == "alibi" else []))
    assert doc["schema"] == "posemb.inspect/1"
    assert CONFIG_KEYS | {"scheme"} <= set(doc["config"]) and doc["config"]["scheme"] == name
    check_scheme_object(doc, name)


def test_inspect_yarn_reports_attention_factor_and_unscaled_bands():
    doc, = run_json("inspect", "--scheme", "rope", "--rope-scaling", "yarn", "--rope-factor", "4", *SMALL)
    check_scheme_object(doc, "rope", scaled=True)
    assert doc["attention_factor"] == pytest.approx(0.1 * math.log(4) + 1)


def test_compare_object_holds_one_inspect_shaped_entry_per_scheme():
    doc, = run_json("compare", "--schemes", ",".join(ALL), *SMALL, *HEADS)
    assert list(doc) == ["schema", "config", "schemes"] and doc["schema"] == "posemb.compare/1"
    assert CONFIG_KEYS <= set(doc["config"]) and doc["config"]["schemes"] == list(ALL)
    for name, entry in zip(ALL, doc["schemes"], strict=True):
        assert "config" not in entry and "schema" not in entry
        check_scheme_object(entry, name)


def test_none_writes_undefined_cosines_as_null():
    doc, = run_json("inspect", "--scheme", "none", *SMALL)
    assert all(row[key] is None for row in doc["neighbour_similarity"] for key in ("mean", "min", "max"))
    assert all("zero row has no direction" in row["note"] for row in doc["neighbour_similarity"])


def test_order_and_bench_objects():
    order, = run_json("order", "--schemes", ",".join(ALL), *SMALL, *HEADS)
    assert list(order) == ["schema", "config", "results"] and order["schema"] == "posemb.order/1"
    assert CONFIG_KEYS <= set(order["config"])
    assert [row["scheme"] for row in order["results"]] == list(ALL)
    assert all(isinstance(row["max_abs_diff"], float) for row in order["results"])
    bench, = run_json("bench", "--schemes", "learned,rope", "--dim", "16,8", "--ctx", "32", "--batch", "2",
                      "--vocab", "40", "--repeats", "1", "--warmup", "0", "--device", "cpu")
    assert list(bench) == ["schema", "config", "results"] and bench["schema"] == "posemb.bench/1"
    want = {"scheme", "median_s", "tokens_per_s", "bytes_per_s", "copy_bytes_per_s", "fraction_of_copy"}
    assert len(bench["results"]) == 4 and all(want <= set(row) for row in bench["results"])
    check_no_non_finite(order)
    check_no_non_finite(bench)


def test_sweep_lines_are_inspect_objects():
    lines = run_json("sweep", "--schemes", ",".join(ALL), "--dim", "16", "--ctx", "32", "--vocab", "40",
                     "-b", "2", "-t", "8", "-k", "3", "--device", "cpu")
    assert [doc["schema"] for doc in lines] == ["posemb.inspect/1"] * len(ALL)
    for name, doc in zip(ALL, lines, strict=True):
        assert doc["config"]["scheme"] == name and CONFIG_KEYS <= set(doc["config"])
        assert EVERY_SCHEME <= set(doc)
