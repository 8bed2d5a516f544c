"""`posemb compare MODEL MODEL ...` and `--scalings`: every column is what `posemb inspect` prints for it.

Oracles: `posemb inspect --json` of each model, column by column (a model with one RoPE set per layer type
gives one column per set: its object under ``layer_types``); for a model under a scaling, `posemb inspect` of a
config.json the test writes by hand with that scaling's transformers 5 ``rope_parameters`` block and
``max_position_embeddings`` (the block as transformers documents it), and the frequencies of
``tests/position_oracles`` (the published formulas, written apart from the code under test).
"""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest
from posemb_cli.cli.app import app
from rich.console import Console
from typer.testing import CliRunner

from tests.cli.test_json_schemas import check
from tests.position_oracles import (
    dynamic_inv_freq,
    linear_inv_freq,
    llama3_inv_freq,
    ntk_inv_freq,
    plain_inv_freq,
    yarn_inv_freq,
)
from tests.refusals import check_refused

runner = CliRunner()
SMALL = ["--max-offset", "4", "--seq-len", "16", "--device", "cpu"]
C, BASE, HEAD = 256, 10_000.0, 16
LLAMA = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
         "max_position_embeddings": C, "vocab_size": 100, "rope_theta": BASE}
GEMMA = {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
         "head_dim": HEAD, "num_hidden_layers": 6, "sliding_window": 32, "max_position_embeddings": C,
         "vocab_size": 100, "rope_theta": 1_000_000.0, "rope_local_base_freq": BASE,
         "layer_types": ["sliding_attention"] * 5 + ["full_attention"]}


def write(folder, name: str, config: dict) -> str:
    path = folder / name
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config))
    return str(path / "config.json")


def run_json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def as_inspect_prints(entry: dict) -> dict:
    """A compare entry without the keys compare adds, as the inspect object of its column (minus ``config``)."""
    return {key: value for key, value in entry.items() if key not in ("label", "scaling", "config")}


def inspect_columns(path: str, *flags: str) -> list[tuple[dict, dict]]:
    """(config, object) of each column `posemb inspect` gives for a model: the document, or each RoPE set's."""
    doc = run_json("inspect", path, *SMALL, "--no-plot", *flags)
    config = doc.pop("config")
    del doc["schema"]
    if "layer_types" not in doc:
        return [(config, doc)]
    out = []
    for one in doc["layer_types"]:
        del one["layer_type"]
        out.append((config, {**one, "model": doc["model"], "layer_map": doc["layer_map"]}))
    first = {key: value for key, value in doc.items() if key != "layer_types"}
    assert first == out[0][1]  # the leading set's object is the document's
    return out


def test_two_models_side_by_side_are_each_as_inspect_finds_them(tmp_path):
    llama = write(tmp_path, "llama", LLAMA)
    gemma = write(tmp_path, "gemma", {**GEMMA, "max_position_embeddings": 2 * C})
    doc = run_json("compare", llama, gemma, *SMALL)
    check("compare", doc)
    columns = inspect_columns(llama) + inspect_columns(gemma)
    assert len(doc["schemes"]) == 3  # the llama's one set, the gemma's full and sliding sets
    for entry, (config, expected) in zip(doc["schemes"], columns, strict=True):
        assert as_inspect_prints(entry) == expected
        assert entry["config"] == config and entry["scaling"] is None
    assert [entry["label"] for entry in doc["schemes"]] == ["llama", "gemma full_attention",
                                                           "gemma sliding_attention"]
    assert doc["schemes"][2]["source"]["attends_to"]["distance"] == 32  # the sliding set over its window
    shared = doc["config"]
    assert shared["models"] == [llama, gemma] and shared["scalings"] is None
    assert shared["ctx"] is None and shared["seq_len"] == 16 and shared["device"] == "cpu"  # ctx differs


def _scaled(tmp_path, name: str, block: dict, max_positions: int) -> str:
    return write(tmp_path, name, {**LLAMA, "max_position_embeddings": max_positions,
                                  "rope_parameters": {**block, "rope_theta": BASE}})


def test_one_model_under_four_scalings_is_inspect_of_each_scaled_config(tmp_path):
    llama = write(tmp_path, "llama", LLAMA)
    doc = run_json("compare", llama, "--scalings", "none,linear:4,yarn:4,llama3:8", *SMALL)
    check("compare", doc)
    oracles = [llama,  # the model as published
               _scaled(tmp_path, "linear", {"rope_type": "linear", "factor": 4.0}, 4 * C),
               _scaled(tmp_path, "yarn", {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": C},
                       4 * C),
               _scaled(tmp_path, "llama3", {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": C,
                                            "low_freq_factor": 1.0, "high_freq_factor": 4.0}, 8 * C)]
    assert [entry["label"] for entry in doc["schemes"]] == ["none", "linear:4", "yarn:4", "llama3:8"]
    for entry, oracle in zip(doc["schemes"], oracles, strict=True):
        ((config, expected),) = inspect_columns(oracle)
        ours = json.loads(json.dumps(as_inspect_prints(entry)).replace(llama, oracle))
        assert ours == expected, entry["label"]
        assert {**entry["config"], "model_config": oracle} == config
    d = 64 // 4
    frequencies = [plain_inv_freq(d, BASE), linear_inv_freq(d, BASE, 4), yarn_inv_freq(d, BASE, 4, C),
                   llama3_inv_freq(d, BASE, 8, C)]
    for entry, expected in zip(doc["schemes"], frequencies, strict=True):
        np.testing.assert_allclose([band["inv_freq"] for band in entry["bands"]], expected, rtol=1e-12)
    yarn = doc["schemes"][2]["scaling"]
    assert yarn["rope_parameters"] == {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": C,
                                       "rope_theta": BASE}
    assert (yarn["reference_length"], yarn["length"], yarn["max_position_embeddings"]) == (C, 4 * C, 4 * C)
    assert "relative to 256" in yarn["relative_to"] and doc["schemes"][0]["scaling"]["rope_parameters"] is None
    assert [entry["source"]["attends_to"]["distance"] for entry in doc["schemes"]] == [C, 4 * C, 4 * C, 8 * C]


def test_ntk_and_dynamic_are_transformers_blocks_at_the_length_they_reach(tmp_path):
    llama = write(tmp_path, "llama", LLAMA)
    doc = run_json("compare", llama, "--scalings", "ntk:2,dynamic:2", *SMALL)
    d = 64 // 4
    ntk, dynamic = doc["schemes"]
    np.testing.assert_allclose([band["inv_freq"] for band in ntk["bands"]], ntk_inv_freq(d, BASE, 2), rtol=1e-12)
    assert ntk["scaling"]["rope_parameters"]["rope_type"] == "default"
    # dynamic keeps max_position_embeddings C (transformers measures length against it) and runs to 2 C
    assert dynamic["scaling"]["max_position_embeddings"] == C and dynamic["scaling"]["length"] == 2 * C
    np.testing.assert_allclose([band["inv_freq"] for band in dynamic["bands"]],
                               dynamic_inv_freq(d, BASE, 2, C, 2 * C), rtol=1e-12)
    oracle = _scaled(tmp_path, "dynamic", {"rope_type": "dynamic", "factor": 2.0}, C)
    ((_, expected),) = inspect_columns(oracle)
    assert json.loads(json.dumps(as_inspect_prints(dynamic)).replace(llama, oracle)) == expected


def test_a_sliding_set_keeps_its_block_under_a_scaling(tmp_path):
    gemma = write(tmp_path, "gemma", GEMMA)
    doc = run_json("compare", gemma, "--scalings", "linear:4", *SMALL)
    full, sliding = doc["schemes"]
    assert (full["label"], sliding["label"]) == ("full_attention linear:4", "sliding_attention linear:4")
    assert full["scaling"]["scaled_sets"] == ["full_attention"]
    assert full["scaling"]["kept_sets"] == ["sliding_attention"]
    oracle = write(tmp_path, "oracle", {**GEMMA, "max_position_embeddings": 4 * C, "rope_parameters": {
        "full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 1_000_000.0},
        "sliding_attention": {"rope_type": "default", "rope_theta": BASE}}})
    for entry, (_, expected) in zip(doc["schemes"], inspect_columns(oracle), strict=True):
        ours = json.loads(json.dumps(as_inspect_prints(entry)).replace(gemma, oracle))
        # the oracle states both bases in its blocks; the model took them from rope_theta, rope_local_base_freq
        for one in (ours, expected):
            one["model"]["rules"] = one["source"]["decided_by"] = None
            for rope_set in one["model"]["rope_sets"]:
                rope_set["base_from"] = None
            one["source"]["base_from"] = None
        assert ours == expected, entry["label"]


def test_the_terminal_says_what_each_column_is_at_80_columns(tmp_path):
    llama = write(tmp_path, "llama", LLAMA)
    result = runner.invoke(app, ["compare", llama, "--scalings", "none,yarn:4", *SMALL],
                           env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert all(len(line) <= 80 for line in result.stdout.splitlines())
    text = " ".join(result.stdout.split())
    assert "yarn:4 D=16 (rotary features of one head), distances<1,024" in text
    assert "factor 4 relative to 256 (max_position_embeddings 256): runs to 1,024" in text


def test_the_python_api_gives_the_same_columns(tmp_path):
    import posemb_cli

    llama = write(tmp_path, "llama", LLAMA)
    report = posemb_cli.compare(models=[llama], scalings=["none", "yarn:4"], max_offset=4, seq_len=16, device="cpu")
    assert report.to_dict() == run_json("compare", llama, "--scalings", "none,yarn:4", *SMALL)
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(report)
    assert "yarn:4" in console.file.getvalue()


@pytest.mark.parametrize("args, needle", [
    (["--scalings", "none,yarn:4"], "--scalings needs MODEL"),
    (["MODEL", "--scalings", "yarn"], "--scalings yarn: give its factor, e.g. yarn:4"),
    (["MODEL", "--scalings", "none:2"], "none keeps the model's own frequencies and takes no factor"),
    (["MODEL", "--scalings", "wide:2"], "--scalings: unknown scaling 'wide'"),
    (["MODEL", "--scalings", "yarn:0.5"], "the factor must be a number from 1 to 2**20"),
    (["MODEL", "--scalings", "yarn:4,yarn:4"], "each scaling may be given once"),
    (["MODEL", "--scalings", "longrope:4"], "carries no LongRoPE factors"),
    (["MODEL", "--schemes", "rope"], "--schemes with MODEL"),
    (["MODEL", "--rope-scaling", "yarn", "--rope-factor", "4"], "--rope-scaling conflicts with MODEL"),
    (["MODEL", "--base", "500"], "--base conflicts with MODEL"),
])
def test_refusals(tmp_path, args, needle):
    llama = write(tmp_path, "llama", LLAMA)
    check_refused(["compare", *(llama if arg == "MODEL" else arg for arg in args)], needle)


def test_a_model_without_rope_takes_no_scaling(tmp_path):
    from tests.model_zoo import zoo_model

    check_refused(["compare", zoo_model("gpt2"), "--scalings", "linear:2"], "a scaling stretches RoPE")


REAL = os.environ.get("POSEMB_REAL_MODELS", os.path.expanduser("~/.cache/posemb-real-models"))
SMOL, GEMMA3 = (os.path.join(REAL, name) for name in ("SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"))


@pytest.mark.skipif(not (os.path.isfile(SMOL) and os.path.isfile(GEMMA3)), reason="the real GGUF files are absent")
def test_real_gguf_models_side_by_side():
    """SmolLM2 (one set) and Gemma 3 (a global set over 32,768 positions, a sliding one within its 512 window)."""
    doc = run_json("compare", SMOL, GEMMA3, *SMALL)
    check("compare", doc)
    columns = inspect_columns(SMOL) + inspect_columns(GEMMA3)
    assert [entry["label"] for entry in doc["schemes"]] == [
        "SmolLM2-135M-Instruct.Q4_1", "gemma-3-270m-q4_k_m full_attention", "gemma-3-270m-q4_k_m sliding_attention"]
    for entry, (config, expected) in zip(doc["schemes"], columns, strict=True):
        assert as_inspect_prints(entry) == expected and entry["config"] == config
    assert [entry["source"]["attends_to"]["distance"] for entry in doc["schemes"]] == [8192, 32768, 512]
