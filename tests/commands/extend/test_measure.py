"""`posemb extend MODEL --to L --text FILE` (or `--ids FILE`): every candidate of the prediction measured on the model.

The tiny Llama (trained 32 positions) saved with ``save_pretrained`` beside its tokenizer, and the same
model as a GGUF file written with gguf.GGUFWriter, at L = 96. Oracles: transformers' own forward with
``labels`` on the ids given (the copy probes run in a forward of their own) and each candidate's
``rope_parameters`` as the document gives them (``tests/loss_oracle``), summed up in plain loops over
every position; Spearman's rho and the pairs
ordered apart by brute force. A tiny Gemma 3 (a sliding and a full set, per-layer-type ``rope_parameters``) through
``--ids``. Refusals: each a single line, exit 2, nothing on stdout.
"""

from __future__ import annotations

import json
import shutil
import sys

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("accelerate")
pytest.importorskip("gguf")

from posemb_cli.cli.app import app  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tests.cli.test_json_schemas import check  # noqa: E402
from tests.extend_measure_setup import (  # noqa: E402
    ATOL,
    LENGTH,
    forward_ids,
    oracle_by_candidate,
    pairs_apart,
    plain_figures,
    plain_spearman,
    steady_runtime,
    tiny_files,
)
from tests.loss_oracle import oracle_losses  # noqa: E402
from tests.progress_recorder import Recorder
from tests.refusals import check_refused  # noqa: E402
from tests.tiny_language_model import TEXT, TRAINED, ids_of  # noqa: E402

runner = CliRunner()
TO = str(LENGTH)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_files(tmp_path_factory.mktemp("extend_measure"))


def _json(*args: str) -> dict:
    result = runner.invoke(app, ["extend", *args, "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    doc = json.loads(result.stdout)
    check("extend", doc)
    return doc


@pytest.fixture(scope="module")
def documents(tiny):
    """The --json document of the directory and of the GGUF file, each measured on the text at L."""
    return {"directory": _json(tiny.folder, "--to", TO, "--text", tiny.text, "--device", "cpu"),
            "gguf": _json(tiny.gguf, "--to", TO, "--text", tiny.text, "--runtime", "transformers")}


@pytest.fixture(scope="module")
def oracles(tiny, documents):
    return oracle_by_candidate(documents["directory"], tiny.folder, tiny.window)


@pytest.mark.parametrize("kind", ["directory", "gguf"])
def test_the_measured_keys_join_the_prediction(tiny, documents, kind):
    doc = documents[kind]
    names = [one["scaling"] for one in doc["candidates"]]
    assert names == ["none", "linear", "ntk", "dynamic", "yarn", "llama3"]  # longrope left out: no factors
    assert list(doc).index("agreement") == list(doc).index("ranking") + 1
    assert doc["agreement"]["predicted_ranking"] == [one["scaling"] for one in doc["ranking"]]
    measurement = doc["measurement"]
    assert measurement["length"] == LENGTH and measurement["trained_length"] == TRAINED
    assert sorted(measurement["measured_ranking"]) == sorted(names)
    assert measurement["measured_ranking"] == doc["agreement"]["measured_ranking"]
    assert measurement["text"] == {"source": "text", "files": [tiny.text], "documents": 1, "separator": None,
                                   "tokens_read": ids_of(tiny.tokenizer, TEXT).size, "tokens": LENGTH}
    assert measurement["runtime"]["file"] == ("gguf" if kind == "gguf" else "safetensors")
    assert measurement["runtime"]["device"] == ("cpu" if kind == "directory" else "auto")
    for one in doc["candidates"]:
        assert one["measured"]["tokens"] == LENGTH


@pytest.mark.parametrize("kind", ["directory", "gguf"])
def test_every_figure_equals_transformers_forward_with_labels(documents, oracles, kind):
    doc = documents[kind]
    for one in doc["candidates"]:
        measured, plain = one["measured"], plain_figures(oracles[one["scaling"]], one["measured"])
        edges = [bucket["from"] for bucket in measured["loss_by_position"]] + [measured["loss_by_position"][-1]["to"]]
        assert edges[0] == 0 and edges[-1] == LENGTH and TRAINED in edges and len(edges) - 1 >= 16
        np.testing.assert_allclose([np.nan if bucket["mean_loss"] is None else bucket["mean_loss"]
                                    for bucket in measured["loss_by_position"]],
                                   plain["buckets"], rtol=0, atol=ATOL, err_msg=one["scaling"])
        assert sum(bucket["positions"] for bucket in measured["loss_by_position"]) == len(plain["positions"])
        for key in ("within", "beyond", "ratio", "mean_loss"):
            assert measured[key] == pytest.approx(plain[key], abs=ATOL), (one["scaling"], key)


@pytest.mark.parametrize("kind", ["directory", "gguf"])
def test_the_measured_ranking_orders_the_oracles_mean_losses(documents, oracles, kind):
    """Lower mean (over every position of the ids given) first; two means within float32's noise (relative 1e-4)
    keep the predicted order."""
    doc = documents[kind]
    ranking, predicted = doc["agreement"]["measured_ranking"], doc["agreement"]["predicted_ranking"]
    mean = {name: float(np.mean(losses)) for name, losses in oracles.items()}  # every position of the ids given
    for index, first in enumerate(ranking):
        for second in ranking[index + 1:]:
            gap = mean[second] - mean[first]
            tied = abs(gap) <= 1e-4 * abs(mean[first])
            assert gap > 0 or tied, (first, second)
            if tied:
                assert predicted.index(first) < predicted.index(second), (first, second)
    # ntk and dynamic with factor 1 give the same frequencies at L: a tie, in the predicted order
    assert np.abs(oracles["ntk"] - oracles["dynamic"]).max() < ATOL


@pytest.mark.parametrize("kind", ["directory", "gguf"])
def test_agreement_is_spearmans_rho_and_the_pairs_ordered_apart(documents, kind):
    agreement = documents[kind]["agreement"]
    measured, predicted = agreement["measured_ranking"], agreement["predicted_ranking"]
    assert agreement["spearman"] == pytest.approx(plain_spearman(measured, predicted), abs=1e-12)
    assert agreement["disagreements"] == pairs_apart(measured, predicted)
    for pair in agreement["disagreements"]:
        assert (f"predicted {pair['predicted_first']} above {pair['measured_first']}, measured "
                f"{pair['measured_first']} above {pair['predicted_first']}") in agreement["statement"]


def test_ids_give_the_texts_figures(tiny, documents, tmp_path):
    np.save(tmp_path / "ids.npy", tiny.window[None])
    doc = _json(tiny.folder, "--to", TO, "--ids", str(tmp_path / "ids.npy"), "--scalings", "none,yarn")
    by_text = {one["scaling"]: one["measured"] for one in documents["directory"]["candidates"]}
    for one in doc["candidates"]:
        for key in ("within", "beyond", "mean_loss"):
            assert one["measured"][key] == pytest.approx(by_text[one["scaling"]][key], abs=1e-9)
    assert doc["measurement"]["text"]["source"] == "ids" and doc["agreement"]["spearman"] in (1.0, -1.0)


def test_gemma3_both_rope_sets_run_as_predicted(tmp_path):
    """A sliding set kept and a full set extended, per layer type; every loss equals transformers' forward."""
    from tests.commands.heads.test_transformers import saved_model

    saved_model("gemma3", tmp_path / "gemma3")
    ids = np.random.default_rng(3).integers(0, 50, (1, 160))
    np.save(tmp_path / "ids.npy", ids)
    doc = _json(str(tmp_path / "gemma3"), "--to", "160", "--ids", str(tmp_path / "ids.npy"),
                "--scalings", "none,yarn,linear")
    by = {one["name"]: one for one in doc["sets"]}
    assert not by["sliding_attention"]["needs_extension"] and by["full_attention"]["needs_extension"]
    assert doc["measurement"]["trained_length"] == by["full_attention"]["trained_length"] == 64
    assert forward_ids(ids[0], doc) is not None  # the probes' own forward: the ids with the probes written over them
    for one in doc["candidates"]:
        assert set(one["rope_parameters"]) == {"sliding_attention", "full_attention"}
        losses = oracle_losses(str(tmp_path / "gemma3"), one["rope_parameters"], ids[0])  # the ids given
        plain = plain_figures(losses, one["measured"], 64)
        np.testing.assert_allclose([np.nan if bucket["mean_loss"] is None else bucket["mean_loss"]
                                    for bucket in one["measured"]["loss_by_position"]],
                                   plain["buckets"], rtol=0, atol=1e-4)


def test_an_ollama_blob_without_suffix_is_measured_as_a_gguf(tiny, tmp_path):
    blob = tmp_path / "sha256-0123abcd"
    shutil.copy(tiny.gguf, blob)
    doc = _json(str(blob), "--to", TO, "--text", tiny.text, "--scalings", "yarn")
    assert doc["measurement"]["runtime"]["file"] == "gguf" and doc["agreement"]["spearman"] is None


@pytest.mark.parametrize("width", [40, 80, 120])
def test_the_terminal_shows_both_rankings_and_a_curve_per_candidate(tiny, monkeypatch, width, tmp_path):
    from tests.cli.test_whole_figures import cuts

    steady_runtime(monkeypatch)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", str(width))
    plot = tmp_path / "loss.png"
    result = runner.invoke(app, ["extend", tiny.folder, "--to", TO, "--text", tiny.text, "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "\x1b[" not in out and cuts(out) == [] and max(len(line) for line in out.splitlines()) <= width
    flat = " ".join(out.split())
    assert f"Measured at L = {LENGTH}, best first" in flat and "Rank agreement (Spearman's rho)" in flat
    assert "Predicted: " in flat and "Measured: " in flat and f"│ at T = {TRAINED}" in flat
    curves = [line.split()[0] for line in out.splitlines()
              if line.startswith("  ") and "│" in line and any(glyph in line for glyph in "▁▂▃▄▅▆▇█")]
    assert sorted(curves) == sorted(["none", "linear", "ntk", "dynamic", "yarn", "llama3"])  # one per candidate
    assert plot.stat().st_size > 1000


def test_no_plot_leaves_out_the_curves(tiny, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    result = runner.invoke(app, ["extend", tiny.folder, "--to", TO, "--text", tiny.text, "--scalings", "none",
                                 "--no-plot"])
    assert result.exit_code == 0, result.output
    assert "Measured at L" in result.stdout and "Loss by position" not in result.stdout


def test_progress_is_a_bar_per_candidate(tiny):
    from posemb_cli.commands.extend.measure import measure_candidates, open_measured
    from posemb_cli.commands.extend.predict import run_extend
    from posemb_cli.sources.naming.model_file import model_file

    recorder = Recorder()
    report = run_extend(tiny.folder, to=LENGTH, scalings=["none", "yarn"])
    measure_candidates(open_measured(model_file(tiny.folder), what="--text", device="cpu", dtype="float32"), report,
                       text=[tiny.text], ids=None, progress=recorder)
    per = ["loading", f"{LENGTH} tokens"] * 2  # the ids given, then the copy probes' own forward
    assert [name for name, _total in recorder.named] == [
        "tokenizing the text", *(f"measuring 1 of 2, none: {stage}" for stage in per),
        *(f"measuring 2 of 2, yarn: {stage}" for stage in per)]
    assert all(total for name, total in recorder.named if name.endswith("tokens"))


def test_refusals(tiny, tmp_path, monkeypatch):
    model = tiny.folder
    short = tmp_path / "short.txt"
    short.write_text(TEXT[:80], encoding="utf-8")
    tokens = ids_of(tiny.tokenizer, TEXT[:80]).size
    assert tokens < LENGTH
    check_refused(["extend", model, "--to", TO, "--text", str(short)],
                  f"the text has {tokens:,} tokens under {model}'s tokenizer; a window of {LENGTH} needs at least")
    check_refused(["extend", model, "--to", TO, "--device", "cpu"], "--device is read only by the measurement")
    check_refused(["extend", model, "--to", TO, "--dtype", "float64", "--device", "cpu"],
                  "--device and --dtype are read only by the measurement on the model, which --text FILE or --ids "
                  "FILE asks for")
    np.save(tmp_path / "ids.npy", tiny.window[None])
    check_refused(["extend", model, "--to", TO, "--text", tiny.text, "--ids", str(tmp_path / "ids.npy")],
                  "--text and --ids: give one of them")
    check_refused(["extend", model, "--to", TO, "--text", tiny.text, "--device", "tpu"], "--device tpu: not a device")
    config_only = tmp_path / "config_only"
    config_only.mkdir()
    shutil.copy(f"{model}/config.json", config_only / "config.json")
    check_refused(["extend", str(config_only), "--to", TO, "--text", tiny.text],
                  "measuring runs the model: give its directory with safetensors weights, or a .gguf file")
    np.save(tmp_path / "few.npy", tiny.window[None, :10])
    check_refused(["extend", model, "--to", TO, "--ids", str(tmp_path / "few.npy")],
                  f"holds 10 ids; a window of {LENGTH} needs at least {LENGTH}")
    check_refused(["extend", model, "--to", "33", "--text", tiny.text], "no position past the trained length 32")
    monkeypatch.setitem(sys.modules, "transformers", None)  # `import transformers` now raises ImportError
    check_refused(["extend", model, "--to", TO, "--text", tiny.text],
                  "--text: measuring on the model needs the 'measure' extra (transformers is missing")


def test_an_ascii_terminal_gets_the_curves_in_ascii(tiny):
    """A stdout that cannot encode the glyphs gets the curves in '.', ':', '+', '#' and T as '|'; nothing is cut."""
    import os
    import subprocess

    from tests.cli.test_whole_figures import ROOT, cuts

    environ = {**os.environ, "PYTHONPATH": ROOT, "PYTHONIOENCODING": "ascii", "COLUMNS": "80", "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-m", "posemb_cli", "extend", tiny.folder, "--to", TO, "--text", tiny.text,
                             "--scalings", "none,yarn"], env=environ, capture_output=True, text=True,
                            encoding="ascii", timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert cuts(result.stdout) == []
    curves = [line for line in result.stdout.splitlines() if line.startswith(("  none ", "  yarn ")) and "|" in line]
    assert len(curves) == 2
    for line in curves:
        assert set(line.split()[1]) <= set(".:+#|"), line
    assert "Rank agreement (Spearman's rho): 1.000." in " ".join(result.stdout.split())


def test_several_texts_are_documents_joined_by_the_separator(tiny, tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(TEXT[:120], encoding="utf-8")
    second.write_text(TEXT[120:], encoding="utf-8")
    doc = _json(tiny.folder, "--to", TO, "--text", str(first), "--text", str(second), "--scalings", "none")
    head = ids_of(tiny.tokenizer, TEXT[:120]).size
    assert head < LENGTH
    assert doc["measurement"]["text"] == {
        "source": "text", "files": [str(first), str(second)], "documents": 2,
        "separator": {"token": "</s>", "id": tiny.tokenizer.eos_token_id},
        "tokens_read": head + 1 + ids_of(tiny.tokenizer, TEXT[120:]).size, "tokens": LENGTH}


def test_ctrl_c_exits_130_and_writes_nothing(tiny, tmp_path, monkeypatch):
    from posemb_cli.runtime.transformers_backend import losses

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(losses, "window_losses", interrupted)
    plot = tmp_path / "loss.png"
    result = runner.invoke(app, ["extend", tiny.folder, "--to", TO, "--text", tiny.text, "--plot", str(plot),
                                 "--json"])
    assert result.exit_code == 130 and result.stdout == "" and not plot.exists()
