"""`coverage`, `--full` and the terminal captions of a sampled pass, through the CLI.

The threshold is made small here (2,048 positions in blocks of 256) so that a sampled run takes a moment;
the rule is the same function of L, P and B at any size (tests/measures/test_sampling.py).
"""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from posemb_cli.cli.app import app
from posemb_cli.measures import sampling
from posemb_cli.schemas import load_schema
from typer.testing import CliRunner

from tests.schema_coverage import undescribed_keys

runner = CliRunner()
FEW = ["-b", "2", "-t", "8", "-k", "3", "--vocab", "40", "--device", "cpu"]


def run(*args: str) -> str:
    result = runner.invoke(app, [*args, *FEW])
    assert result.exit_code == 0, result.output
    return result.stdout


def document(*args: str) -> dict:
    return json.loads(run(*args, "--json"))


def check(name: str, found: dict) -> None:
    assert not list(Draft202012Validator(load_schema(name)).iter_errors(found))
    assert undescribed_keys(found, load_schema(name)) == []


@pytest.fixture
def small_sample(monkeypatch):
    monkeypatch.setattr(sampling, "SAMPLE_POSITIONS", 2048)
    monkeypatch.setattr(sampling, "SAMPLE_BLOCK", 256)


@pytest.mark.parametrize("scheme", ["learned", "sinusoidal", "rope", "alibi", "none"])
def test_every_position_up_to_the_threshold_says_so(scheme):
    heads = ["--heads", "4"] if scheme == "alibi" else []
    found = document("inspect", "--scheme", scheme, "--dim", "16", "--ctx", "64", *heads)
    assert found["coverage"] == {"positions_measured": 64, "of": 64, "blocks": 1, "rule": "every position"}
    assert found["config"]["full"] is False
    check("inspect", found)


@pytest.mark.parametrize("scheme", ["sinusoidal", "rope", "alibi"])
def test_above_the_threshold_a_computed_signal_is_sampled(small_sample, scheme):
    found = document("inspect", "--scheme", scheme, "--dim", "16", "--ctx", "10000")
    check("inspect", found)
    starts = [i * (10000 - 256) // 7 for i in range(8)]
    assert found["coverage"]["positions_measured"] == 2048 and found["coverage"]["of"] == 10000
    assert found["coverage"]["blocks"] == 8 and "floor(i * (10,000 - 256) / 7)" in found["coverage"]["rule"]
    card = found["scorecard"]
    assert "over the 2,048 sampled positions of 10,000" in card["boundedness"]["note"]
    assert "sampled position" in card["uniqueness"]["note"]
    i, j = (int(word) for word in card["uniqueness"]["note"].split(",")[0].split()[-3::2])  # "positions i and j"
    assert any(s <= i < s + 256 for s in starts) and j > i  # the closest pair starts at a sampled position


def test_a_stored_table_is_measured_in_full_at_any_length(small_sample):
    found = document("inspect", "--scheme", "learned", "--dim", "8", "--ctx", "5000")
    assert found["coverage"] == {"positions_measured": 5000, "of": 5000, "blocks": 1,
                                 "rule": "every position (a stored table is measured in full)"}


@pytest.mark.parametrize("scheme", ["sinusoidal", "rope"])
def test_full_gives_the_exhaustive_figures(monkeypatch, scheme):
    """--full above the threshold gives exactly what the pass gives when the threshold is above the context."""
    exhaustive = document("inspect", "--scheme", scheme, "--dim", "16", "--ctx", "6000")  # 6,000 <= 2**20
    monkeypatch.setattr(sampling, "SAMPLE_POSITIONS", 2048)
    monkeypatch.setattr(sampling, "SAMPLE_BLOCK", 256)
    sampled = document("inspect", "--scheme", scheme, "--dim", "16", "--ctx", "6000")
    full = document("inspect", "--scheme", scheme, "--dim", "16", "--ctx", "6000", "--full")
    assert sampled["coverage"]["positions_measured"] == 2048
    assert full["coverage"] == {"positions_measured": 6000, "of": 6000, "blocks": 1,
                                "rule": "every position (--full)"}
    assert full["config"]["full"] is True and exhaustive["config"]["full"] is False
    for doc in (full, exhaustive):
        del doc["coverage"]["rule"], doc["config"]["full"]
    assert full == exhaustive
    assert sampled["neighbour_similarity"] != exhaustive["neighbour_similarity"]


def test_the_terminal_says_how_many_positions_were_measured(small_sample):
    text = " ".join(run("inspect", "--scheme", "rope", "--dim", "16", "--ctx", "10000", "--pictures", "full").split())
    assert "over 2,048 sampled positions of 10,000" in text
    assert "exact" in text
    text = " ".join(run("compare", "--schemes", "learned,rope", "--dim", "16", "--ctx", "10000").split())
    assert "rope: over 2,048 sampled positions of 10,000" in text and "learned: over every p" in text


def test_compare_and_sweep_take_full(small_sample):
    found = document("compare", "--schemes", "learned,sinusoidal", "--dim", "8", "--ctx", "4096", "--full")
    check("compare", found)
    assert [scheme["coverage"]["positions_measured"] for scheme in found["schemes"]] == [4096, 4096]
    lines = run("sweep", "--schemes", "sinusoidal", "--dim", "8", "--ctx", "64,4096", "--json").splitlines()
    assert [json.loads(line)["coverage"]["positions_measured"] for line in lines] == [64, 2048]
    lines = run("sweep", "--schemes", "sinusoidal", "--dim", "8", "--ctx", "4096", "--full", "--json").splitlines()
    assert json.loads(lines[0])["coverage"]["positions_measured"] == 4096
