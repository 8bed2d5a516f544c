"""`posemb extend` as a command, on tiny models saved by transformers (and a GGUF file written with GGUFWriter): every
kind of MODEL, its JSON against the shipped schema with every promise brute-forced, the heads' shares against
`posemb heads --json`, the terminal output, progress, refusals."""

from __future__ import annotations

import io
import json
import shutil

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.cli.test_json_schemas import check
from tests.commands.heads.test_transformers import saved_model
from tests.extend_promises import check_extend_promises, pair_sums
from tests.model_files import write_config
from tests.model_zoo import zoo_model
from tests.progress_recorder import Recorder
from tests.refusals import check_refused

runner = CliRunner()
TO = "256"  # the tiny models are trained at 64 positions


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict:
    """Paths of one tiny Llama (GQA, 64 positions) as every kind of MODEL, and a tiny Gemma 3 (window 8)."""
    root = tmp_path_factory.mktemp("extend")
    model = saved_model("llama_gqa", root / "llama")
    config_only = root / "config_only"
    config_only.mkdir()
    shutil.copy(root / "llama" / "config.json", config_only / "config.json")
    paths = {"directory": str(root / "llama"), "safetensors": str(root / "llama" / "model.safetensors"),
             "config_json": str(config_only / "config.json"), "config_directory": str(config_only)}
    gguf = pytest.importorskip("gguf")
    del gguf
    from tests.commands.heads.test_gguf import _llama_meta, gguf_tensors
    from tests.gguf_files import write_gguf

    paths["gguf"] = write_gguf(root / "llama.gguf", "llama", _llama_meta(model.config),
                               gguf_tensors(model, "llama", None), tokens=model.config.vocab_size)
    saved_model("gemma3", root / "gemma3")
    paths["gemma3"] = str(root / "gemma3")
    return paths


def _json(*args: str) -> dict:
    result = runner.invoke(app, ["extend", *args, "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


@pytest.mark.parametrize("kind", ["directory", "safetensors", "config_json", "config_directory", "gguf", "gemma3"])
def test_every_kind_of_model_validates_and_keeps_every_promise(models, kind):
    doc = _json(models[kind], "--to", TO)
    check("extend", doc)
    check_extend_promises(doc)
    assert doc["weighted_by"] == ("pairs" if kind.startswith("config") else "heads")
    assert doc["source"]["kind"] == {"directory": "checkpoint", "safetensors": "checkpoint", "gguf": "gguf",
                                     "gemma3": "checkpoint"}.get(kind, "config")


def test_weights_in_any_format_give_the_same_figures(models):
    figures = {kind: _json(models[kind], "--to", TO)["candidates"] for kind in ("directory", "safetensors", "gguf")}
    for kind in ("safetensors", "gguf"):
        for ours, theirs in zip(figures[kind], figures["directory"], strict=True):
            assert ours["scaling"] == theirs["scaling"]
            np.testing.assert_allclose([ours["extrapolated_share"], ours["compressed_share"], ours["score"]],
                                       [theirs["extrapolated_share"], theirs["compressed_share"], theirs["score"]],
                                       rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", ["directory", "gguf", "gemma3"])
def test_heads_weighted_shares_are_sums_of_the_heads_json_pair_shares(models, kind):
    heads = json.loads(runner.invoke(app, ["heads", "--checkpoint", models[kind], "--json"]).stdout)
    extended = _json(models[kind], "--to", TO)
    assert pair_sums(heads, extended) == sum(len(c["heads"]) for one in extended["sets"] for c in one["candidates"])
    assert pair_sums(heads, extended) > 0


def test_the_sliding_set_needs_no_extension_and_is_kept(models):
    doc = _json(models["gemma3"], "--to", TO)
    by = {one["name"]: one for one in doc["sets"]}
    sliding = by["sliding_attention"]
    assert not sliding["needs_extension"] and sliding["attends_to"] == {
        "distance": 8, "windowed": True, "why": sliding["attends_to"]["why"]}  # Gemma3TextConfig sliding_window 8
    assert "needs no extension" in sliding["why"]
    assert by["full_attention"]["needs_extension"]


def test_same_flags_give_the_same_bytes(models):
    first = runner.invoke(app, ["extend", models["directory"], "--to", TO, "--json"])
    assert first.stdout == runner.invoke(app, ["extend", models["directory"], "--to", TO, "--json"]).stdout


def test_scalings_and_factor_are_taken(models):
    doc = _json(models["config_json"], "--to", TO, "--scalings", "yarn,linear", "--factor", "2")
    assert doc["scalings"] == ["linear", "yarn"] and doc["factor"] == 2.0
    one, = doc["sets"]
    assert [c["factor"] for c in one["candidates"]] == [2.0, 2.0]
    linear = one["candidates"][0]
    assert linear["counts"]["extrapolated"] > 0  # linear by 2 does not reach 256 from 64: pairs past critical turn on
    check_extend_promises(doc)


@pytest.mark.parametrize("width", [40, 80, 120])
def test_terminal_output_fits_and_cuts_nothing(models, width, monkeypatch):
    from tests.cli.test_whole_figures import cuts

    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", str(width))
    for kind in ("directory", "gemma3", "config_json"):
        result = runner.invoke(app, ["extend", models[kind], "--to", TO])
        assert result.exit_code == 0, result.output
        out = result.stdout
        assert cuts(out) == [] and max(len(line) for line in out.splitlines()) <= width
        assert "\x1b[" not in out
        assert "Recommended:" in out and '"rope_parameters"' in out and "Rule:" in out
        assert "extrapolated" in out and "unchanged" in out


def test_colour_and_strips_on_a_colour_terminal(models):
    from posemb_cli.commands.extend.predict import run_extend
    from posemb_cli.commands.extend.render import render_extend
    from rich.console import Console

    report = run_extend(models["directory"], to=int(TO))
    console = Console(file=io.StringIO(), width=80, color_system="truecolor", force_terminal=True)
    console.print(render_extend(report))
    text = console.file.getvalue()
    assert "\x1b[" in text and "█" in text and "▒" in text
    strips = [line for line in text.splitlines() if "none" in line and "█" in line]
    assert strips  # the none strip shows the extrapolated pairs


def test_progress_names_each_stage_and_advances(models):
    from posemb_cli.commands.extend.predict import run_extend

    recorder = Recorder()
    report = run_extend(models["directory"], to=int(TO), progress=recorder)
    assert [name for name, _ in recorder.named] == ["reading the model", "reading q and k of 2 layers",
                                                     "classifying pairs"]
    assert recorder.done == 2 + len(report.scalings)


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_is_written(models, tmp_path, suffix):
    pytest.importorskip("matplotlib")
    path = tmp_path / f"extend{suffix}"
    result = runner.invoke(app, ["extend", models["gemma3"], "--to", TO, "--plot", str(path), "--no-plot"])
    assert result.exit_code == 0, result.output
    assert path.stat().st_size > 1000 and "RoPE set" in result.stdout and "none     " not in result.stdout


def test_bad_flags_are_refused(models):
    model = models["config_json"]
    check_refused(["extend", model, "--to", "64"], "--to 64 is within the trained length 64")
    check_refused(["extend", model, "--to", "0"], "--to must be a whole number from 2")
    check_refused(["extend", model, "--to", TO, "--scalings", "yarn,ropey"], "--scalings: unknown scaling 'ropey'")
    check_refused(["extend", model, "--to", TO, "--scalings", "yarn,yarn"], "each scaling may be given once")
    check_refused(["extend", model, "--to", TO, "--scalings", "longrope"], "carries no LongRoPE factors")
    check_refused(["extend", model, "--to", TO, "--factor", "0.5"], "--factor must be a number from 1")
    check_refused(["extend", model, "--to", TO, "--scalings", "none", "--factor", "2"],
                  "--factor is read by no chosen scaling")
    check_refused(["extend", model, "--to", TO, "--top", "0"], "--top must be a whole number from 1")
    check_refused(["extend", model, "--to", TO, "--plot", "x.gif"], "--plot x.gif: unsupported extension")
    check_refused(["extend", model], "--to")


def test_models_extend_cannot_take_are_refused(tmp_path):
    check_refused(["extend", str(tmp_path / "none.gguf"), "--to", TO], "MODEL")
    check_refused(["extend", str(tmp_path), "--to", TO], "holds no config.json")
    check_refused(["extend", zoo_model("gpt2"), "--to", "4096"], "has none")
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "model.safetensors").write_bytes(b"")
    check_refused(["extend", str(lone / "model.safetensors"), "--to", TO], "no config.json beside the weights")


def test_a_family_that_cannot_load_a_scaling_is_refused_or_left_out(tmp_path):
    # GPTJConfig's attribute_map reads these standard names as n_embd, n_head, n_layer, n_positions
    path = write_config(tmp_path, model_type="gptj", hidden_size=64, num_attention_heads=4, num_hidden_layers=2,
                        max_position_embeddings=128, rotary_dim=8, vocab_size=50)
    check_refused(["extend", path, "--to", "512", "--scalings", "yarn"], "--scalings yarn: transformers' GPT-J")
    doc = _json(path, "--to", "512")
    assert doc["scalings"] == ["none"]
    assert {one["scaling"] for one in doc["left_out"]} == {"linear", "ntk", "dynamic", "yarn", "llama3", "longrope"}
    check("extend", doc)
    result = runner.invoke(app, ["extend", path, "--to", "512"], env={"NO_COLOR": "1", "COLUMNS": "100"})
    assert "Left out: yarn (transformers' GPT-J computes its RoPE" in " ".join(result.stdout.split())


def test_torch_is_not_imported_for_a_refused_flag():
    from tests.cli.test_startup import probe

    report = probe(["extend", "x", "--to", "9", "--scalings", "bad"])
    assert report["code"] == 2 and "torch" not in report["heavy"] and "numpy" not in report["heavy"]


def test_an_ascii_terminal_gets_the_strips_in_ascii(models):
    """A stdout that cannot encode the glyphs gets '.', ':' and '#', and nothing is cut."""
    import os
    import subprocess
    import sys

    from tests.cli.test_whole_figures import ROOT, cuts

    environ = {**os.environ, "PYTHONPATH": ROOT, "PYTHONIOENCODING": "ascii", "COLUMNS": "80", "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-m", "posemb_cli", "extend", models["config_json"], "--to", TO],
                            env=environ, capture_output=True, text=True, encoding="ascii", timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert cuts(result.stdout) == [] and "#" in result.stdout and ". unchanged" in result.stdout
