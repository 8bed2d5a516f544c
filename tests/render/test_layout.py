"""At any width every figure is shown whole: tables fit, or stack one scheme per table, or fold; never cut."""

from __future__ import annotations

import io
import json

import pytest
from posemb_cli.render.documents import render_compare
from posemb_cli.render.format import general, number
from posemb_cli.run.analysis import compare
from posemb_cli.run.config import make_config, with_position_settings
from rich.console import Console

ALL = ("learned", "sinusoidal", "rope", "alibi", "none")


@pytest.fixture(scope="module")
def report():
    config = with_position_settings(make_config(dim=32, ctx=128, vocab=1000, batch=2, seq_len=16, device="cpu",
                                                max_offset=8), schemes=ALL, heads=4)
    return compare(config, ALL)


def text_at(report, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, legacy_windows=False)
    console.print(render_compare(report))
    return console.file.getvalue()


@pytest.mark.parametrize("width", [40, 60, 80, 120, 200])
def test_no_line_passes_the_width_and_no_figure_is_cut(report, width):
    text = text_at(report, width)
    assert max(len(line) for line in text.splitlines()) <= width
    # the only ellipses are the ones the tables write on purpose
    assert text.replace("min … max", "").replace("1…K", "").replace(" … ", "").count("…") == 0


@pytest.mark.parametrize("width", [80, 120, 200])
def test_every_figure_is_printed_whole(report, width):
    text = text_at(report, width)
    document = json.loads(json.dumps(report.to_dict()))
    for entry in document["schemes"]:
        for row in entry["neighbour_similarity"] if "left_out" not in entry else []:  # alibi's: left out, said why
            assert number(row["mean"]) in text
        for key, card in entry["scorecard"].items():
            if card.get("applies", True):
                assert shown(card["value"], card.get("rounding_level", 0.0)) in text, (entry["scheme"], key)
                assert general(card["threshold"]) in text, (entry["scheme"], key)
        level = entry["relative_rounding_level"] * entry["relative_scale"]
        assert shown(entry["relative_deviation"], level) in text


def shown(value: float, bound: float) -> str:
    """A figure as people see it: within its rounding bound, that bound (two digits), else four digits."""
    return f"<{bound:.2g}" if 0 < abs(value) <= bound else general(value)


def test_at_80_columns_the_five_schemes_share_each_table(report):
    text = text_at(report, 80)
    header = next(line for line in text.splitlines() if "learned" in line and "none" in line and "property" in line)
    assert all(name in header for name in ALL)  # the scorecard keeps all five side by side, uncut


def test_none_relative_is_not_applicable_with_a_footnote(report):
    text = text_at(report, 80)
    relative = next(line for line in text.splitlines() if line.strip().startswith("relative ") and "≤" not in line
                    and ("✓" in line or "✗" in line))
    assert relative.rstrip().endswith("n/a¹")
    assert "¹ n/a: the property does not apply" in text
    assert "relative of none: the score is the same at every offset" in " ".join(text.split())
    assert "boundedness of alibi: a bias that grows with distance is the design" in " ".join(text.split())
    assert "token-position cross terms" in text  # the deviation table says why it differs from the scorecard
