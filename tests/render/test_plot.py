"""--plot FILE.png|FILE.svg: the figure is written and valid; a missing matplotlib or a bad extension exits 2."""

import sys
import xml.etree.ElementTree as ElementTree

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.model_files import gpt2_tensors, save_safetensors

runner = CliRunner()
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_inspect_writes_a_png(tmp_path):
    target = tmp_path / "sinusoidal.png"
    result = runner.invoke(app, ["inspect", "--ctx", "64", "--dim", "16", "--device", "cpu", "--plot", str(target)])
    assert result.exit_code == 0, result.output
    assert target.read_bytes()[:8] == PNG_MAGIC
    assert target.stat().st_size > 10_000


def test_compare_checkpoint_writes_an_svg_under_json(tmp_path):
    model = save_safetensors(tmp_path / "model.safetensors", gpt2_tensors(rows=40, dim=16))
    target = tmp_path / "figure.svg"
    result = runner.invoke(app, ["compare", "--checkpoint", model, "--schemes", "learned,sinusoidal",
                                 "--device", "cpu", "--plot", str(target), "--json"])
    assert result.exit_code == 0, result.output
    root = ElementTree.parse(target).getroot()
    assert root.tag.endswith("svg")
    text = target.read_text()
    for scheme in ("checkpoint", "learned", "sinusoidal"):
        assert f"{scheme}: cos(p, q)" in text
    assert result.stdout.startswith("{") and result.stdout.count("\n") == 1


@pytest.mark.parametrize("name, needle", [("figure.pdf", "unsupported extension '.pdf'; use .png or .svg"),
                                          ("figure", "unsupported extension '(none)'"),
                                          ("missing/figure.png", "does not exist")])
def test_bad_plot_paths(tmp_path, name, needle):
    result = runner.invoke(app, ["inspect", "--device", "cpu", "--plot", str(tmp_path / name)])
    assert result.exit_code == 2
    assert needle in result.stderr
    assert result.stdout == "" and "Traceback" not in result.output


def test_missing_matplotlib_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    result = runner.invoke(app, ["inspect", "--device", "cpu", "--plot", str(tmp_path / "f.png"), "--json"])
    assert result.exit_code == 2
    assert "pip install 'posemb[plot]'" in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "f.png").exists()


def test_no_plot_still_writes_the_file_but_draws_nothing_in_the_terminal(tmp_path):
    target = tmp_path / "f.svg"
    result = runner.invoke(app, ["inspect", "--ctx", "64", "--dim", "16", "--device", "cpu", "--no-plot",
                                 "--plot", str(target)])
    assert result.exit_code == 0, result.output
    assert "Similarity heatmap" not in result.stdout
    assert ElementTree.parse(target).getroot().tag.endswith("svg")


def test_alibi_draws_its_penalty_not_its_cosines():
    """ALiBi's figure: no heatmap and no cosine curves (each says why), and a row of its bias by distance: each
    head's curve is -slope_h * d (Press et al.'s slopes, written here), with a dashed line at ln 0.5 and ln 0.01."""
    import math

    pytest.importorskip("matplotlib")
    import posemb_cli

    report = posemb_cli.inspect(scheme="alibi", heads=4, dim=16, ctx=64, seq_len=8, max_offset=2, device="cpu")
    figure = report.plot()
    texts = [text.get_text() for axes in figure.axes for text in axes.texts]
    assert any("no heatmap" in text for text in texts)
    assert sum("no cosines to draw" in text for text in texts) == 2
    (penalty,) = [axes for axes in figure.axes if axes.get_title().startswith("ALiBi")]
    slopes = [2.0 ** (-8.0 * i / 4) for i in range(1, 5)]
    curves = [line for line in penalty.get_lines() if line.get_label().startswith("alibi head")]
    assert len(curves) == 4
    for slope, line in zip(slopes, curves, strict=True):
        distances, bias = line.get_data()
        assert list(bias) == pytest.approx([-slope * d for d in distances], rel=1e-12)
        assert list(distances) == [1, 2, 4, 8, 16, 32, 63]
    levels = sorted(line.get_ydata()[0] for line in penalty.get_lines() if line.get_linestyle() == "--")
    assert levels == pytest.approx([math.log(0.01), math.log(0.5)])
