"""ALiBi: the paper's slopes (8, 12, 16 heads), its bias, and what the reports say."""

import json

import pytest
import torch
from posemb_cli.cli.app import app
from posemb_cli.core.schemes.alibi import AlibiPositionalBias, alibi_slopes
from typer.testing import CliRunner

from tests.position_oracles import paper_slopes

runner = CliRunner()

# Written out from the ALiBi paper (Press et al., 2022): 2^(-8/n) geometric for n a power of two;
# for 12 heads, the 8-head slopes then every other one of the 16-head slopes.
PAPER = {
    8: [2 ** -1, 2 ** -2, 2 ** -3, 2 ** -4, 2 ** -5, 2 ** -6, 2 ** -7, 2 ** -8],
    16: [2 ** (-0.5 * (i + 1)) for i in range(16)],
    12: [2 ** -1, 2 ** -2, 2 ** -3, 2 ** -4, 2 ** -5, 2 ** -6, 2 ** -7, 2 ** -8,
         2 ** -0.5, 2 ** -1.5, 2 ** -2.5, 2 ** -3.5],
}


@pytest.mark.parametrize("heads", [8, 12, 16])
def test_slopes_match_the_paper(heads):
    assert alibi_slopes(heads) == pytest.approx(PAPER[heads], rel=1e-15)
    assert alibi_slopes(heads) == pytest.approx(paper_slopes(heads), rel=1e-15)


@pytest.mark.parametrize("heads", [1, 2, 3, 5, 6, 7, 20, 24])
def test_other_head_counts_follow_the_reference_code(heads):
    assert alibi_slopes(heads) == pytest.approx(paper_slopes(heads), rel=1e-15)


def test_bias_is_minus_slope_times_distance():
    alibi = AlibiPositionalBias(32, 24, heads=12)
    positions = torch.arange(6)
    bias = alibi.bias(positions, positions).numpy()  # (H, T, T)
    for h, slope in enumerate(PAPER[12]):
        for m in range(6):
            for n in range(6):
                assert bias[h, m, n] == pytest.approx(-slope * abs(m - n), rel=1e-15)
    assert sum(p.numel() for p in alibi.parameters()) == 0
    assert torch.count_nonzero(alibi(10)) == 0 and alibi(10).shape == (10, 24)


def test_inspect_reports_slopes_bias_and_scorecard():
    result = runner.invoke(app, ["inspect", "--scheme", "alibi", "--heads", "12", "--dim", "48", "--ctx", "64",
                                 "--vocab", "50", "-b", "2", "-t", "8", "-k", "3", "--device", "cpu", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["slopes"] == pytest.approx(PAPER[12], rel=1e-15)
    assert [row["offset"] for row in doc["attention_bias"]] == [0, 1, 2, 3]
    for row in doc["attention_bias"]:
        assert row["bias"] == pytest.approx([-s * row["offset"] for s in PAPER[12]], rel=1e-15, abs=0)
    assert doc["acts_on"] == "attention scores" and "bands" not in doc
    assert doc["relative_deviation"] == pytest.approx(0.0, abs=1e-6)  # the bias depends on m - n only
    card = doc["scorecard"]
    assert card["relative"]["pass"] and card["extrapolation"]["pass"]
    # Its signal grows linearly with distance: largest |bias| against position 0 is slope_max * (L - 1).
    assert card["boundedness"]["value"] == pytest.approx(max(PAPER[12]) * 63, rel=1e-6)
    assert not card["boundedness"]["pass"]


def test_heads_must_divide_dim():
    result = runner.invoke(app, ["compare", "--schemes", "learned,alibi", "--heads", "5", "--dim", "64", "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "--heads 5" in result.stderr and "--dim 64" in result.stderr
    fine = runner.invoke(app, ["compare", "--schemes", "learned", "--heads", "5", "--dim", "16", "--ctx", "32",
                               "--vocab", "20", "-t", "4", "--json"])
    # without alibi no scheme reads --heads: refused as unread (checked after its value), naming who reads it
    assert fine.exit_code == 2 and fine.stdout == "", fine.output
    assert fine.stderr.count("\n") == 1 and "--heads" in fine.stderr and "alibi" in fine.stderr
