"""The five-property scorecard: every figure against a brute-force NumPy oracle, for every scheme."""

import json
import math

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from posemb_cli.core.schemes.learned import LearnedPositionalEmbedding
from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding
from posemb_cli.measures.scorecard import scorecard
from posemb_cli.run.config import PosembError
from typer.testing import CliRunner

from tests.pair_oracles import min_pair_distance, neighbour_min_distance
from tests.position_oracles import min_distance

runner = CliRunner()
KEYS = ("uniqueness", "boundedness", "relative", "extrapolation", "determinism")


class GivenTable(torch.nn.Module):
    """Only the protocol: a table of L rows, refused beyond L (like one read from a checkpoint)."""

    def __init__(self, table):
        super().__init__()
        self.max_ctx, self.dim = table.shape
        self.weight = table

    def forward(self, seq_len):
        if seq_len > self.max_ctx:
            raise PosembError(f"sequence length {seq_len} exceeds max context {self.max_ctx}")
        return self.weight[:seq_len]

    acts_on = "input"

    def table(self):
        return self.weight

    def signal(self, start=0, stop=None):
        return self.forward(self.max_ctx if stop is None else stop)[start:]

    def serves(self, length):
        return length <= self.max_ctx

    def bands(self):
        return None


def lstsq_residual(table, offsets, rows, features):
    worst = 0.0
    for k in offsets:
        x, y = table[:rows, :features], table[k:k + rows, :features]
        m, *_ = np.linalg.lstsq(x, y, rcond=None)
        worst = max(worst, np.linalg.norm(y - x @ m) / np.linalg.norm(y))
    return worst


def test_min_pair_distance_exact_and_strided():
    table = torch.randn(60, 5, dtype=torch.float64)
    table[41] = table[7] + 1e-4
    found = min_pair_distance(table, pair_budget=10_000)
    want, pair = min_distance(table.numpy())
    assert found["distance"] == pytest.approx(want, rel=1e-9) and tuple(found["pair"]) == pair
    assert found["stride"] == 1 and found["pairs"] == 60 * 59 // 2
    strided = min_pair_distance(table, pair_budget=200)  # 21 rows: 210 > 200 pairs, so every 3rd row: 20 rows
    assert strided["stride"] == 3 and strided["pairs"] <= 200
    want, pair = min_distance(table.numpy()[::3])
    assert strided["distance"] == pytest.approx(want, rel=1e-9) and strided["pair"] == [3 * pair[0], 3 * pair[1]]


def test_neighbour_min_distance_against_a_loop():
    table = torch.randn(200, 7, dtype=torch.float64)
    table[120] = table[117] + 1e-3
    found = neighbour_min_distance(table, 4)
    data = table.numpy()
    want = min((np.linalg.norm(data[i] - data[i + k]), i, i + k) for k in range(1, 5) for i in range(200 - k))
    assert found["distance"] == pytest.approx(want[0], rel=1e-9) and found["pair"] == [want[1], want[2]]


def test_learned_table_scores():
    learned = LearnedPositionalEmbedding(96, 16, generator=torch.Generator().manual_seed(3))
    rebuild = lambda: LearnedPositionalEmbedding(96, 16, generator=torch.Generator().manual_seed(3))  # noqa: E731
    card = scorecard(learned, rebuild=rebuild, max_offset=4).to_dict()
    assert tuple(card) == KEYS
    data = learned.table().double().numpy()
    assert card["uniqueness"]["value"] == pytest.approx(min_distance(data)[0], rel=1e-6)
    assert card["uniqueness"]["pass"]
    assert card["boundedness"]["value"] == pytest.approx(np.abs(data).max(), rel=1e-6)
    assert card["boundedness"]["threshold"] == pytest.approx(1.25 * np.abs(data[:48]).max(), rel=1e-6)
    # Offsets 1..4 over the first 92 rows of 16 features: a random table is not a linear function of its past.
    assert card["relative"]["value"] == pytest.approx(lstsq_residual(data, [1, 2, 3, 4], 92, 16), rel=1e-6)
    assert card["relative"]["value"] > 0.5 and not card["relative"]["pass"]
    assert card["extrapolation"] == {"value": 96.0, "threshold": 192.0, "pass": False, "judged": "table",
                                     "note": card["extrapolation"]["note"]}
    assert "refused" in card["extrapolation"]["note"]
    assert card["determinism"]["value"] == 0.0 and card["determinism"]["pass"]
    different = scorecard(learned, rebuild=lambda: LearnedPositionalEmbedding(96, 16), max_offset=4).to_dict()
    assert not different["determinism"]["pass"] and different["determinism"]["value"] > 0


def test_sinusoidal_table_is_relative():
    sinusoidal = SinusoidalPositionalEmbedding(128, 16, dtype=torch.float64)
    card = scorecard(sinusoidal, max_offset=3).to_dict()
    data = sinusoidal.table().numpy()
    assert card["relative"]["value"] == pytest.approx(lstsq_residual(data, [1, 2, 3], 125, 16), abs=1e-10)
    assert card["relative"]["value"] < 1e-8 and card["relative"]["pass"]
    assert card["boundedness"]["value"] == pytest.approx(1.0) and card["boundedness"]["pass"]
    assert card["uniqueness"]["value"] == pytest.approx(min_distance(data)[0], rel=1e-9)
    assert "no rebuild" in card["determinism"]["note"]


def test_any_table_following_the_protocol():
    rows = torch.randn(40, 6)
    rows[30] = rows[10]  # a duplicated position: not unique
    card = scorecard(GivenTable(rows), max_offset=2).to_dict()
    assert card["uniqueness"]["value"] == 0.0 and not card["uniqueness"]["pass"]
    assert card["extrapolation"]["value"] == 40 and not card["extrapolation"]["pass"]


def test_large_table_uses_a_strided_sample_and_says_so():
    card = scorecard(GivenTable(torch.randn(3000, 4)), max_offset=2, pair_budget=5000).to_dict()
    note = card["uniqueness"]["note"]
    assert "every 30th position (100 of 3,000)" in note


@pytest.mark.parametrize("scheme", ["learned", "sinusoidal", "rope", "alibi", "none"])
def test_every_scheme_has_a_full_scorecard_in_compare(scheme):
    result = runner.invoke(app, ["compare", "--schemes", scheme, "--dim", "16", "--ctx", "64", "--vocab", "40",
                                 "-b", "2", "-t", "8", "-k", "3", "--device", "cpu", "--json"])
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)["schemes"]
    for key in KEYS:
        judged = {"judged"} if key == "extrapolation" else {"rounding_level"} if key == "relative" else set()
        assert set(entry["scorecard"][key]) - {"applies"} == {"value", "threshold", "pass", "note"} | judged
        # none's relative has nothing to measure (its score is the same at every offset); alibi's bias grows
        # with distance by design, so its boundedness does not apply
        not_applicable = (scheme, key) in (("none", "relative"), ("alibi", "boundedness"))
        assert entry["scorecard"][key].get("applies", True) is not not_applicable
        verdict = entry["scorecard"][key]["pass"]  # no verdict (null) where the property does not apply
        assert (verdict is None) if not_applicable else isinstance(verdict, bool)
        assert entry["scorecard"][key]["note"]
    eps = np.finfo(np.float32).eps  # the default --dtype float32
    assert entry["scorecard"]["relative"]["rounding_level"] == pytest.approx(1000 * eps, rel=1e-12)
    passed = {key: entry["scorecard"][key]["pass"] for key in KEYS}
    expected = {
        "learned": dict(uniqueness=True, boundedness=True, relative=False, extrapolation=False, determinism=True),
        "sinusoidal": dict(uniqueness=True, boundedness=True, relative=True, extrapolation=True, determinism=True),
        # rope's pairs 3 to 7 never turn within ctx 64 (64 theta < 2pi): past it they extrapolate
        "rope": dict(uniqueness=True, boundedness=True, relative=True, extrapolation=False, determinism=True),
        "alibi": dict(uniqueness=True, boundedness=None, relative=True, extrapolation=True, determinism=True),
        "none": dict(uniqueness=False, boundedness=True, relative=None, extrapolation=True, determinism=True),
    }[scheme]
    assert passed == expected
    assert math.isfinite(entry["relative_deviation"])


def test_the_given_table_follows_the_scheme_protocol():
    from posemb_cli.core.schemes.protocols import AttentionScheme, PositionScheme

    given = GivenTable(torch.randn(4, 2))
    assert isinstance(given, PositionScheme) and not isinstance(given, AttentionScheme)


def _sinusoidal_rows(start, stop, dim, base=10000.0):
    """The lesson's formula written out: angle = p / base ** (2 (i // 2) / D); sin on even i, cos on odd i."""
    p = np.arange(start, stop, dtype=np.float64)[:, None]
    i = np.arange(dim)[None, :]
    angle = p / base ** (2 * (i // 2) / dim)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))


def _mean_cos_k1(rows):
    a, b = rows[:-1], rows[1:]
    return float(np.mean((a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))))


def test_sinusoidal_extrapolation_judges_the_formula_not_the_built_table():
    """The table built for L rows refuses position L, yet its formula gives any row: the row says it judged the
    formula, and its figures are those of the formula's rows L..2L-1 (NumPy)."""
    sinusoidal = SinusoidalPositionalEmbedding(64, 16, dtype=torch.float64)
    with pytest.raises(PosembError):
        sinusoidal(65)  # the built table stops at L
    entry = scorecard(sinusoidal, max_offset=2).to_dict()["extrapolation"]
    assert entry["judged"] == "formula" and entry["pass"] and entry["value"] == 128
    assert "the table built for ctx=64 stops at position 63" in entry["note"]
    beyond, inside = _sinusoidal_rows(64, 128, 16), _sinusoidal_rows(0, 64, 16)
    assert f"beyond ctx mean cos(k=1) {_mean_cos_k1(beyond):.4g} vs {_mean_cos_k1(inside):.4g} within" in entry["note"]


@pytest.mark.parametrize("scheme, judged", [("learned", "table"), ("sinusoidal", "formula"), ("rope", "formula"),
                                            ("alibi", "formula"), ("none", "formula")])
def test_extrapolation_says_what_it_judged_in_json_and_terminal(scheme, judged):
    args = ["inspect", "--scheme", scheme, "--dim", "16", "--ctx", "64", "--vocab", "40", "-b", "2", "-t", "8",
            "-k", "3", "--device", "cpu", "--no-plot"]
    doc = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert doc["scorecard"]["extrapolation"]["judged"] == judged
    assert doc["scorecard"]["extrapolation"]["note"].startswith(f"judged: the {judged}")
    shown = runner.invoke(app, args, env={"COLUMNS": "100", "NO_COLOR": "1"}).stdout
    assert f"longest length served ({judged})" in shown
