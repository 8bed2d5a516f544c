"""`posemb_cli.extend(..., text=..., ids=...)` against `posemb extend --text/--ids`: the same JSON bytes, the same
terminal output, the same refusal lines; every per-position loss of the report equals transformers' own forward
with ``labels`` (``tests/loss_oracle``); the figure draws the report's own bucket means."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("accelerate")
pytest.importorskip("gguf")

import posemb_cli  # noqa: E402
from posemb_cli.cli.app import app  # noqa: E402
from posemb_cli.run.report import to_json  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tests.extend_measure_setup import ATOL, LENGTH, steady_runtime, tiny_files  # noqa: E402
from tests.loss_oracle import oracle_losses  # noqa: E402
from tests.test_api import _cli, _shown  # noqa: E402
from tests.tiny_language_model import TEXT  # noqa: E402

runner = CliRunner()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_files(tmp_path_factory.mktemp("api_extend_measure"))


@pytest.fixture(scope="module")
def report(tiny):
    return posemb_cli.extend(tiny.folder, to=LENGTH, text=tiny.text, device="cpu")


def test_every_per_position_loss_equals_transformers_forward(tiny, report):
    run = report.measurement
    np.testing.assert_array_equal(run.window.ids, tiny.window)
    for one in report.candidates:
        losses = run.measured(one.scaling).losses
        assert losses.shape == (LENGTH - 1,)
        # on the ids given: the loss is the text's own (the copy probes ran in a forward of their own)
        np.testing.assert_allclose(losses, oracle_losses(tiny.folder, one.rope_parameters, run.window.ids),
                                   rtol=0, atol=ATOL, err_msg=one.scaling)


@pytest.mark.parametrize(("kwargs", "args"), [
    ({"scalings": ["none", "yarn"]}, ["--scalings", "none,yarn"]),
    ({"scalings": "linear,dynamic", "dtype": "float64", "no_plot": True},
     ["--scalings", "linear,dynamic", "--dtype", "float64", "--no-plot"]),
], ids=["text", "float64"])
def test_the_report_is_the_commands_json_and_tables(tiny, monkeypatch, capsys, kwargs, args):
    def api():
        steady_runtime(monkeypatch)
        return posemb_cli.extend(tiny.folder, to=LENGTH, text=[tiny.text], device="cpu", **kwargs)

    def cli(*extra):
        steady_runtime(monkeypatch)
        return _cli("extend", tiny.folder, "--to", str(LENGTH), "--text", tiny.text, "--device", "cpu", *args, *extra)

    report = api()
    assert capsys.readouterr().out == ""
    assert report.measurement is not None and report.measurement.runtime["dtype"] == kwargs.get("dtype", "float32")
    assert to_json(report.to_dict()) + "\n" == cli("--json")
    assert report.to_json() == to_json(report.to_dict())
    assert _shown(report) == cli()


@pytest.mark.parametrize(("kwargs", "args"), [
    ({"device": "cpu"}, ["--device", "cpu"]),
    ({"dtype": "bfloat16", "device": "cpu"}, ["--dtype", "bfloat16", "--device", "cpu"]),
    ({"text": "short", "ids": "ids"}, ["--text", "short", "--ids", "ids"]),
    ({"text": "short"}, ["--text", "short"]),
    ({"ids": "few"}, ["--ids", "few"]),
    ({"text": "text", "device": "tpu"}, ["--text", "text", "--device", "tpu"]),
    ({"text": "text", "dtype": "int8"}, None),  # the CLI refuses a dtype that is no choice before the run
], ids=["device", "dtype", "both", "short-text", "few-ids", "bad-device", "bad-dtype"])
def test_bad_arguments_raise_the_clis_line(tiny, tmp_path, kwargs, args):
    short = tmp_path / "short.txt"
    short.write_text(TEXT[:80], encoding="utf-8")
    np.save(tmp_path / "few.npy", tiny.window[None, :10])
    files = {"short": str(short), "ids": str(tmp_path / "few.npy"), "few": str(tmp_path / "few.npy"),
             "text": tiny.text}
    kwargs = {key: files.get(value, value) if key in ("text", "ids") else value for key, value in kwargs.items()}
    with pytest.raises(posemb_cli.PosembError) as raised:
        posemb_cli.extend(tiny.folder, to=LENGTH, **kwargs)
    if args is None:
        line = str(raised.value)  # the API checks a choice before anything runs, as the CLI's parser does
        assert line.startswith("--dtype") and "'int8'" in line
        assert all(name in line for name in ("float32", "float64", "float16", "bfloat16"))
        return
    result = runner.invoke(app, ["extend", tiny.folder, "--to", str(LENGTH),
                                 *[files.get(arg, arg) for arg in args]])
    assert result.exit_code == 2 and result.stdout == ""
    assert f"posemb: error: {raised.value}\n" == result.stderr


def test_a_missing_extra_raises_the_clis_line(tiny, monkeypatch):
    monkeypatch.setitem(sys.modules, "accelerate", None)  # `import accelerate` now raises ImportError
    result = runner.invoke(app, ["extend", tiny.folder, "--to", str(LENGTH), "--text", tiny.text])
    with pytest.raises(posemb_cli.PosembError) as raised:
        posemb_cli.extend(tiny.folder, to=LENGTH, text=tiny.text)
    assert result.exit_code == 2 and f"posemb: error: {raised.value}\n" == result.stderr
    assert "pip install 'posemb[measure]'" in result.stderr and "accelerate is missing" in result.stderr


def test_the_figure_draws_the_reports_bucket_means(report):
    pytest.importorskip("matplotlib")
    from matplotlib.patches import StepPatch

    figure = report.plot()
    assert len(figure.axes) == 4  # the set's two, the loss curves, and the retrieval curves
    steps = [patch for patch in figure.axes[2].patches if isinstance(patch, StepPatch)]
    run = report.measurement
    assert len(steps) == len(run.ranking)
    for patch, name in zip(steps, run.ranking, strict=True):
        values, edges, _baseline = patch.get_data()
        buckets = run.measured(name).profile.buckets
        np.testing.assert_array_equal(values, [bucket.mean_loss for bucket in buckets])
        assert list(edges) == [bucket.start for bucket in buckets] + [LENGTH]
