"""The engine rules of docs/engines.md, one test each, against oracles written here from the engines' sources:

- vLLM's gpt_oss.py builds yarn whatever the config says: only a yarn candidate gets vLLM settings;
- a written config reaches L where no frequency reads max_position_embeddings (vLLM's table from it, a GGUF's
  context_length from it), else says who stops short;
- a GGUF's context_length below L gets the gguf-set-metadata command that raises it, and that command, run, does;
- a model whose every layer attends within its trained length is answered (exit 0), with each engine's settings;
- llama.cpp's -c is named with its parallel slots.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from posemb_cli.cli.app import app
from posemb_cli.commands.extend.config_edit import edit_config, text_prefix
from posemb_cli.commands.extend.engines import engines_for
from typer.testing import CliRunner

from tests.commands.extend.test_config_edit import FILES, PUBLISHED, published, report_of
from tests.commands.extend.test_engines import _blocks, _cases, _table
from tests.gguf_files import write_gguf

pytest.importorskip("transformers")
pytest.importorskip("torch")

runner = CliRunner()


def test_gpt_oss_in_vllm_runs_yarn_only():
    report, reading, cases = _cases("gpt-oss-20b.json")
    config = published("gpt-oss-20b.json")
    seen = set()
    for candidate, specs in cases:
        engines = engines_for(candidate, specs, report.to, config, reading.model_type)
        types = {block["rope_type"] for block in ([candidate.rope_parameters] if "rope_type" in
                                                  candidate.rope_parameters else candidate.rope_parameters.values())}
        vllm = engines["vllm"]
        if types != {"yarn"}:
            assert vllm["args"] is None and not vllm["exact"] and "gpt_oss.py" in vllm["differs"], candidate.scaling
            assert "gpt_oss.py" not in (engines["sglang"]["differs"] or "")  # SGLang's gpt-oss uses get_rope
            seen.add("refused")
        elif vllm["args"] is not None:
            seen.add("yarn")
    assert seen == {"refused", "yarn"}


@pytest.mark.parametrize("name", FILES)
def test_a_written_config_reaches_l_or_says_who_stops_short(name):
    report = report_of(name)
    config = published(name)
    for candidate in report.candidates:
        edit = edit_config(config, candidate.rope_parameters, report.to)
        text = edit.config["text_config"] if text_prefix(config) else edit.config
        context = text.get("max_position_embeddings")
        if context is None:  # silent: the class default, which the engines' overrides raise (test_engines)
            continue
        blocks = _blocks(text)
        length_free = all(block.get("rope_type", block.get("type", "default")) in ("default", "linear", "llama3")
                          for block in blocks)
        if length_free:
            assert context >= report.to, (name, candidate.scaling)  # a GGUF from it reaches L in Ollama
        table = min(_table(block, context) for block in blocks)
        if table < report.to:
            assert any(f"short of {report.to:,}" in note for note in edit.notes), (name, candidate.scaling)


def _gguf(tmp_path, context: int) -> str:
    return write_gguf(tmp_path / "m.gguf", "llama", {"context_length": context, "rope.freq_base": 10000.0})


def test_a_short_context_length_gets_the_command_that_raises_it(tmp_path):
    report, reading, cases = _cases("llama-2-7b.json")
    candidate, specs = next((one, specs) for one, specs in cases if one.scaling == "none")
    path = _gguf(tmp_path, 4096)
    engines = engines_for(candidate, specs, report.to, None, "llama",
                          {"architecture": "llama", "context_length": 4096, "path": path})
    for name in ("llama_cpp", "ollama"):
        need = engines[name]["context_length"]
        assert need == {"key": "llama.context_length", "file": 4096, "needed": report.to,
                        "command": ["gguf-set-metadata", "--force", path, "llama.context_length", str(report.to)]}
    assert engines["ollama"]["exact"] and "caps num_ctx" in engines["ollama"]["note"]
    long_enough = engines_for(candidate, specs, report.to, None, "llama",
                              {"architecture": "llama", "context_length": report.to, "path": path})
    assert long_enough["ollama"]["context_length"]["command"] is None


@pytest.mark.slow
def test_the_printed_command_raises_the_context_length(tmp_path):
    gguf = pytest.importorskip("gguf")
    path = _gguf(tmp_path, 4096)
    report, reading, cases = _cases("llama-2-7b.json")
    candidate, specs = cases[0]
    command = engines_for(candidate, specs, report.to, None, "llama", {"architecture": "llama", "context_length": 4096,
                                                                       "path": path})["ollama"]["context_length"]
    script = os.path.join(os.path.dirname(sys.executable), command["command"][0])
    done = subprocess.run([script, *command["command"][1:]], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    field = gguf.GGUFReader(path).get_field("llama.context_length")
    assert int(field.parts[field.data[0]][0]) == report.to


def test_a_model_whose_layers_attend_within_t_is_answered():
    path = str(PUBLISHED / "mistral-7b-v0.1.json")
    result = runner.invoke(app, ["extend", path, "--to", "65536", "--json"])
    assert result.exit_code == 0, result.output
    recommendation = json.loads(result.stdout)["recommendation"]
    assert recommendation["rope_needs_no_change"] is True and recommendation["scaling"] == "none"
    assert recommendation["rope_parameters"] == {"rope_type": "default", "rope_theta": 10000.0}
    vllm = recommendation["engines"]["vllm"]
    assert vllm["exact"] and vllm["env"] == {}
    assert vllm["args"][:2] == ["--max-model-len", "65536"]
    merged = {**published("mistral-7b-v0.1.json"), **vllm["hf_overrides"]}
    assert min(_table(block, merged["max_position_embeddings"]) for block in _blocks(merged)) >= 65536
    shown = runner.invoke(app, ["extend", path, "--to", "65536", "--no-plot"])
    assert shown.exit_code == 0 and "RoPE needs no change" in shown.stdout


def test_llama_cpp_names_its_parallel_slots():
    report, reading, cases = _cases("llama-2-7b.json")
    candidate, specs = next((one, specs) for one, specs in cases if one.scaling == "yarn")
    entry = engines_for(candidate, specs, report.to, published("llama-2-7b.json"), reading.model_type)["llama_cpp"]
    assert entry["args"] is not None and "-c" in entry["args"]
    assert "-np" in entry["slots_note"] and "n_ctx_seq" in entry["slots_note"]


def test_a_config_s_ollama_entry_names_the_context_length_its_converted_gguf_would_have():
    """From a config.json, the GGUF convert_hf_to_gguf.py writes carries max_position_embeddings as its context_length:
    the published 4,096 of Llama 2, short of L, so the command that raises it comes with the entry."""
    report, reading, cases = _cases("llama-2-7b.json")
    candidate, specs = next((one, specs) for one, specs in cases if one.scaling == "none")
    config = published("llama-2-7b.json")
    entry = engines_for(candidate, specs, report.to, config, reading.model_type)["ollama"]
    need = entry["context_length"]
    assert need["file"] == config["max_position_embeddings"] == 4096 < report.to
    assert need["key"] == "llama.context_length"
    assert need["command"][-2:] == ["llama.context_length", str(report.to)]
