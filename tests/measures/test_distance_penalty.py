"""ALiBi's distance penalty: slopes, the bias by distance and where each head's weight passes a level, against
Press et al.'s closed form and a brute-force scan written here; and what the terminal shows and leaves out."""

import json
import math

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from posemb_cli.core.schemes.alibi import AlibiPositionalBias, alibi_slopes
from posemb_cli.measures.distance_penalty import distance_penalty
from typer.testing import CliRunner

runner = CliRunner()


def press_slopes(heads: int) -> list[float]:
    """Press et al. (2022), in closed form: H a power of two: slope_i = 2^(-8i/H), i = 1..H. Otherwise, with c the
    largest power of two below H: the c slopes 2^(-8i/c), then the odd-numbered slopes of 2c heads,
    2^(-8(2j+1)/(2c)) for j = 0..H-c-1 (the interleave: every other slope of the next power of two)."""
    c = 1 << (heads.bit_length() - 1)
    if c == heads:
        return [2.0 ** (-8.0 * i / heads) for i in range(1, heads + 1)]
    return [2.0 ** (-8.0 * i / c) for i in range(1, c + 1)] + \
        [2.0 ** (-8.0 * (2 * j + 1) / (2 * c)) for j in range(heads - c)]


def first_below(slope: float, weight: float) -> int:
    """Brute force: the first distance d = 1, 2, ... whose weight exp(-slope * d) is below ``weight``."""
    d = 1
    while math.exp(-slope * d) >= weight:
        d += 1
    return d


@pytest.mark.parametrize("heads", [*range(1, 33), 48, 96, 112])
def test_slopes_follow_press_et_al(heads):
    assert alibi_slopes(heads) == pytest.approx(press_slopes(heads), rel=1e-14)


def test_slopes_against_transformers_bloom():
    """BLOOM builds ALiBi with the same rule (its slopes in float32): its tensor at position 1 holds the slopes."""
    bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    for heads in (8, 12, 16, 20):
        mask = torch.ones(1, 2)
        alibi = bloom.build_alibi_tensor(mask, heads, torch.float64)  # (heads, 1, 2): slope * position
        assert alibi_slopes(heads) == pytest.approx(alibi[:, 0, 1].tolist(), rel=1e-6)


@pytest.mark.parametrize("heads, ctx", [(8, 512), (12, 100), (5, 7), (16, 4096), (1, 2)])
def test_bias_by_distance_and_levels_against_a_scan(heads, ctx):
    scheme = AlibiPositionalBias(ctx, heads * 4, heads=heads)
    found = distance_penalty(scheme, ctx).to_dict()
    slopes = np.array(press_slopes(heads))
    last = max(ctx - 1, 1)
    distances = [d for d in (2 ** i for i in range(20)) if d < last] + [last]
    assert [row["distance"] for row in found["by_distance"]] == distances
    for row in found["by_distance"]:
        assert row["bias"] == pytest.approx((-slopes * row["distance"]).tolist(), rel=1e-14, abs=0)
    assert [level["weight"] for level in found["levels"]] == [0.5, 0.01]
    for level in found["levels"]:
        assert level["bias"] == pytest.approx(math.log(level["weight"]), rel=1e-15)
        assert level["distance"] == [first_below(slope, level["weight"]) for slope in slopes]
    assert found["heads"] == heads and found["ctx"] == ctx


def test_inspect_shows_the_penalty_and_leaves_the_cosines_out():
    args = ["inspect", "--scheme", "alibi", "--heads", "12", "--dim", "48", "--ctx", "100", "--vocab", "50",
            "-b", "2", "-t", "8", "-k", "3", "--device", "cpu"]
    doc = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    slopes = press_slopes(12)
    one_percent = [first_below(slope, 0.01) for slope in slopes]
    assert doc["distance_penalty"]["levels"][1]["distance"] == one_percent
    assert set(doc["left_out"]) == {"neighbour_similarity", "heatmap", "boundedness"}
    assert doc["scorecard"]["boundedness"]["applies"] is False
    assert doc["neighbour_similarity"] is None  # left out, not printed as rows of 1.0
    assert doc["scorecard"]["boundedness"]["pass"] is None  # no verdict where the property does not apply
    shown = runner.invoke(app, args, env={"COLUMNS": "80", "NO_COLOR": "1", "LINES": "40"}).stdout
    flat = " ".join(shown.split())
    assert "Neighbour similarity and similarity heatmap: left out for alibi" in flat
    assert "Similarity heatmap, alibi" not in shown and "Decay of similarity" not in shown
    assert "mean cosine of rows" not in shown
    reach = {int(cells[0]): cells for cells in (line.replace("│", " ").split() for line in shown.splitlines()
                                                if line.startswith("│")) if cells[0].isdigit() and len(cells) >= 4
             and cells[-1].startswith(("█", "▏", "▎", "▍", "▌", "▋", "▊", "▉"))}
    assert sorted(reach) == list(range(12))
    for head, cells in reach.items():
        assert cells[2] == f"{one_percent[head]:,}"
        assert cells[-1].endswith("›") is (one_percent[head] > 99)  # past the context's last distance


def test_compare_leaves_alibi_out_of_the_neighbour_table():
    args = ["compare", "--schemes", "sinusoidal,alibi", "--heads", "4", "--dim", "16", "--ctx", "64", "--vocab",
            "40", "-b", "2", "-t", "8", "-k", "3", "--device", "cpu"]
    shown = runner.invoke(app, args, env={"COLUMNS": "80", "NO_COLOR": "1"}).stdout
    table = shown[shown.index("Neighbour similarity"):shown.index("left out for alibi")]
    header = next(line for line in table.splitlines() if "sinusoidal" in line)
    assert "alibi" not in header
    assert "Neighbour similarity: left out for alibi" in " ".join(shown.split())


def test_many_heads_show_sixteen_spread_evenly_and_say_so():
    args = ["inspect", "--scheme", "alibi", "--heads", "32", "--dim", "64", "--ctx", "64", "--vocab", "50",
            "-b", "2", "-t", "8", "-k", "2", "--device", "cpu", "--no-plot"]
    shown = runner.invoke(app, args, env={"COLUMNS": "80", "NO_COLOR": "1"}).stdout
    assert "16 of 32 heads shown, ⋮ after a gap; --json lists all" in shown
    rows = [line.replace("│", " ").split() for line in shown.splitlines() if line.startswith("│")]
    heads = [int(cells[1]) if cells[0] == "⋮" else int(cells[0]) for cells in rows
             if cells and (cells[0].isdigit() or cells[0] == "⋮") and len(cells) > 3]
    first_table = heads[:16]
    assert first_table[0] == 0 and first_table[-1] == 31 and len(set(first_table)) == 16
    doc = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert len(doc["distance_penalty"]["levels"][1]["distance"]) == 32  # JSON: every head
