"""compare and inspect through Typer's runner: figures, JSON contract, human output."""

import json

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.oracles import neighbour_cosines, sinusoidal_table

runner = CliRunner()


def run_json(*args):
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


def test_compare_json_contract_key_by_key():
    doc = run_json("compare", "--dim", "64", "--ctx", "512")
    assert list(doc) == ["schema", "config", "schemes"]
    assert doc["schema"] == "posemb.compare/1"
    config = doc["config"]
    for key, value in {"schemes": ["learned", "sinusoidal"], "dim": 64, "ctx": 512, "vocab": 32000, "batch": 4,
                       "seq_len": 128, "seed": 0, "device": "cpu", "dtype": "float32", "base": 10000.0,
                       "init_std": 0.02, "max_offset": 8, "ids": None}.items():
        assert config[key] == value, key
    learned, sinusoidal = doc["schemes"]
    assert learned["scheme"] == "learned" and sinusoidal["scheme"] == "sinusoidal"
    for entry in doc["schemes"]:
        assert entry["shapes"] == {"ids": [4, 128], "token": [4, 128, 64], "position": [128, 64],
                                   "output": [4, 128, 64]}
        assert entry["params"]["token"] == 32000 * 64
        assert entry["table"]["rows"] == 512 and entry["table"]["dim"] == 64
        assert [row["offset"] for row in entry["neighbour_similarity"]] == list(range(1, 9))
    assert learned["params"] == {"token": 2048000, "position": 32768, "total": 2080768, "overhead": 0.016}
    assert sinusoidal["params"] == {"token": 2048000, "position": 0, "total": 2048000, "overhead": 0.0}
    assert "bands" in sinusoidal and "bands" not in learned


def test_sinusoidal_figures_match_the_oracle():
    doc = run_json("inspect", "--scheme", "sinusoidal", "--dim", "32", "--ctx", "200", "-k", "5")
    assert doc["schema"] == "posemb.inspect/1" and doc["config"]["scheme"] == "sinusoidal"
    table = sinusoidal_table(200, 32)
    for got, want in zip(doc["neighbour_similarity"], neighbour_cosines(table, 5)):
        for key in ("mean", "min", "max"):
            assert got[key] == pytest.approx(want[key], abs=1e-6)
    norms = np.linalg.norm(table, axis=1)
    assert doc["table"]["norm_mean"] == pytest.approx(norms.mean(), abs=1e-5)
    assert doc["table"]["norm_mean"] == pytest.approx(4.0, abs=1e-5)  # sqrt(D / 2): sin^2 + cos^2 per pair
    assert len(doc["bands"]) == 16
    for band in doc["bands"]:
        k = band["pair"]
        assert band["inv_freq"] == pytest.approx(1 / 10000 ** (2 * k / 32), rel=1e-12)
        assert band["wavelength"] == pytest.approx(2 * np.pi * 10000 ** (2 * k / 32), rel=1e-12)


def test_learned_figures_are_near_zero_and_match_the_table():
    import torch

    doc = run_json("inspect", "--scheme", "learned", "--dim", "16", "--ctx", "64", "--seed", "5", "-k", "3")
    # The table drawn independently of the code under test: N(0, 0.02^2) in float32 from its own stream, seed + 1.
    weight = torch.empty(64, 16).normal_(0.0, 0.02, generator=torch.Generator().manual_seed(6)).numpy()
    for got, want in zip(doc["neighbour_similarity"], neighbour_cosines(weight, 3), strict=True):
        for key in ("mean", "min", "max"):
            assert got[key] == pytest.approx(want[key], abs=1e-6), key
    norms = np.linalg.norm(weight.astype(np.float64), axis=1)
    assert doc["table"]["norm_mean"] == pytest.approx(norms.mean(), rel=1e-6)
    assert all(abs(row["mean"]) < 0.2 for row in doc["neighbour_similarity"])
    assert doc["params"]["position"] == 64 * 16


def test_dim_changes_the_bands():
    bands32 = run_json("inspect", "--dim", "32")["bands"]
    bands64 = run_json("inspect", "--dim", "64")["bands"]
    assert len(bands32) == 16 and len(bands64) == 32
    assert bands32[1]["wavelength"] == pytest.approx(bands64[2]["wavelength"])
    for dim, bands in ((32, bands32), (64, bands64)):  # 2 pi base^(2k / D), from the formula
        assert [b["wavelength"] for b in bands] == pytest.approx(
            [2 * np.pi * 10000 ** (2 * k / dim) for k in range(dim // 2)], rel=1e-12)


def test_same_flags_give_byte_identical_json():
    args = ["compare", "--dim", "16", "--ctx", "64", "--seed", "3", "--json"]
    first, second = runner.invoke(app, args), runner.invoke(app, args)
    assert first.stdout == second.stdout


def test_ids_file_sets_batch_and_seq_len(tmp_path):
    path = tmp_path / "ids.json"
    path.write_text(json.dumps([[1, 2, 3, 4, 5]] * 2))
    doc = run_json("compare", "--ids", str(path), "--dim", "8", "--ctx", "16", "--vocab", "10")
    assert doc["config"]["batch"] == 2 and doc["config"]["seq_len"] == 5 and doc["config"]["ids"] == str(path)
    assert doc["schemes"][0]["shapes"]["output"] == [2, 5, 8]


def test_ids_from_stdin():
    result = runner.invoke(app, ["inspect", "--ids", "-", "--dim", "8", "--ctx", "16", "--json"], input="[[3, 1, 2]]")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["shapes"]["ids"] == [1, 3]


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_other_dtypes(dtype):
    import torch

    doc = run_json("inspect", "--dim", "64", "--ctx", "512", "--dtype", dtype)
    assert doc["config"]["dtype"] == dtype
    assert doc["neighbour_similarity"][0]["mean"] == pytest.approx(0.9662, abs=5e-3)
    assert doc["config"]["signal_recipe"] == ("float64" if dtype == "float64" else "cast")
    # float64: the table computed in float64. 16-bit dtypes follow the cast recipe: float32 angles
    # p * inv_freq and sin/cos in float32, cast to the dtype. The cosines of exactly those values
    # (products of low-precision rows are taken in float32, hence 1e-6; float64 stays float64).
    if dtype == "float64":
        values = sinusoidal_table(512, 64)
    else:
        inv_freq = (1.0 / 10000.0 ** (2.0 * (np.arange(64) // 2) / 64)).astype(np.float32)
        angles = np.arange(512, dtype=np.float32)[:, None] * inv_freq[None, :]
        values = np.where(np.arange(64) % 2 == 0, np.sin(angles), np.cos(angles)).astype(np.float32)
    cast = torch.from_numpy(values).to(getattr(torch, dtype)).double().numpy()
    tol = 1e-12 if dtype == "float64" else 1e-6
    for got, want in zip(doc["neighbour_similarity"], neighbour_cosines(cast, 8), strict=True):
        for key in ("mean", "min", "max"):
            assert got[key] == pytest.approx(want[key], abs=tol), key


def test_compare_single_scheme():
    doc = run_json("compare", "--schemes", "sinusoidal", "--dim", "8", "--ctx", "32")
    assert [entry["scheme"] for entry in doc["schemes"]] == ["sinusoidal"]


def test_human_output_has_the_tables():
    result = runner.invoke(app, ["compare", "--dim", "64", "--ctx", "512"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    for text in ("Shapes", "Parameters", "Neighbour similarity", "(4, 128, 64)", "32,768", "1.60%", "0.9662"):
        assert text in result.stdout, text
    result = runner.invoke(app, ["inspect", "--dim", "32"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    for text in ("Wavelength bands", "Row norms", "█", "0.9571"):
        assert text in result.stdout, text


def test_version_and_help():
    assert runner.invoke(app, ["--version"]).stdout.startswith("posemb ")
    for args in (["--help"], ["compare", "--help"], ["inspect", "-h"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Usage" in result.stdout
