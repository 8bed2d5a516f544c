"""`posemb extend`'s candidates written into each published config.json (``commands.extend.config_edit``) must load
in transformers as exactly that candidate: for every file in tests/sources/published and every candidate extend
ranks there at a target beyond the file's length, the edited file is loaded with ``AutoConfig.from_pretrained``,
the family's own rotary module is built from it (CPU, no model), and each RoPE set's frequencies and attention
factor at the target equal posemb's prediction; no RoPE warning is logged, and no key outside the edit changes.

The same module runs on transformers 4 (``PYTHONPATH`` pointing at a 4.x install), where ``loaded_rope`` builds
Gemma 3's local rotary module the way transformers 4 does.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import pytest
from posemb_cli.commands.extend.config_edit import apply_ops, edit_config, is_per_layer_type, text_prefix
from posemb_cli.commands.extend.predict import run_extend
from posemb_cli.errors import PosembError

from tests.commands.extend.loaded_rope import assert_same, frequencies, load, predicted

pytest.importorskip("transformers")
pytest.importorskip("torch")

PUBLISHED = Path(__file__).parents[2] / "sources" / "published"
FILES = sorted(path.name for path in PUBLISHED.glob("*.json"))
# keys the edit may touch (under text_config. for a nested text model)
ROPE_KEYS = {"rope_scaling", "rope_parameters", "rope_theta", "rope_local_base_freq", "partial_rotary_factor",
             "max_position_embeddings", "original_max_position_embeddings"}
# transformers 5's one warning on Phi-3's legacy LongRoPE block, which transformers 4's Phi3Config requires
PHI3_LEGACY = "Please set the `factor` field"


def published(name: str) -> dict:
    return json.loads((PUBLISHED / name).read_text())


def target_of(config: dict) -> int:
    """Beyond the file's length: four times its max_position_embeddings (at least 131,072)."""
    text = config["text_config"] if text_prefix(config) else config
    return 4 * max(int(text.get("max_position_embeddings") or 131072), 131072)


@functools.cache
def report_of(name: str):
    config = published(name)
    try:
        return run_extend(str(PUBLISHED / name), to=target_of(config))
    except PosembError as refused:  # Mistral 7B: every layer attends within its 4,096 window
        return str(refused)


def _flat(value, prefix: str = "") -> dict:
    if isinstance(value, dict) and value:
        out = {}
        for key, inner in value.items():
            out.update(_flat(inner, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: value}


def test_every_published_file_is_covered():
    assert len(FILES) >= 10
    refused = [name for name in FILES if isinstance(report_of(name), str)]
    assert refused == [], refused
    kept = [name for name in FILES if report_of(name).recommendation.get("rope_needs_no_change")]
    assert kept == ["mistral-7b-v0.1.json"], kept  # every layer attends within its 4,096 window: answered


@pytest.mark.parametrize("name", FILES)
def test_each_candidate_loads_as_itself(name, tmp_path):
    report = report_of(name)
    if isinstance(report, str):
        pytest.skip(report)
    config = published(name)
    before = copy.deepcopy(config)
    target = report.to
    names = [one.name for one in report.sets]
    for candidate in report.candidates:
        what = f"{name} {candidate.scaling}"
        edit = edit_config(config, candidate.rope_parameters, target)
        assert config == before, "edit_config changed its input"
        assert apply_ops(config, edit.ops) == edit.config, what
        prefix = text_prefix(config)
        for op in edit.ops:
            assert op["key"].startswith(prefix) and op["key"][len(prefix):].split(".")[0] in ROPE_KEYS, (what, op)
        changed = {key for key, value in _flat(edit.config).items() if _flat(config).get(key, object()) != value}
        changed |= _flat(config).keys() - _flat(edit.config).keys()
        assert all(any(key == op["key"] or key.startswith(op["key"] + ".") for op in edit.ops) for key in changed), what
        loaded, warnings = load(edit.config, tmp_path / candidate.scaling)
        if any("Phi-3's legacy LongRoPE" in note for note in edit.notes):
            assert all(PHI3_LEGACY in message for message in warnings), (what, warnings)
        else:
            assert warnings == [], (what, warnings)
        assert_same(frequencies(loaded, names, target), predicted(report, candidate.scaling), what)


def test_llama31_llama3_candidate_edits_the_rope_scaling_block():
    """The reported problem: a llama3 block pasted as rope_parameters is ignored beside Llama 3.1's rope_scaling."""
    config = published("llama-3.1-8b.json")
    report = report_of("llama-3.1-8b.json")
    chosen = next(one for one in report.candidates if one.scaling == "llama3")
    edit = edit_config(config, chosen.rope_parameters, 524288)
    assert edit.ops == [{"op": "set", "key": "max_position_embeddings", "value": 524288},
                        {"op": "set", "key": "rope_scaling.factor", "value": 64.0}]
    assert edit.notes == []


def test_default_candidate_replaces_the_published_block():
    config = published("qwen2.5-7b-instruct-yarn.json")
    edit = edit_config(config, {"rope_type": "default", "rope_theta": 2e7}, 262144)
    assert edit.ops == [{"op": "set", "key": "max_position_embeddings", "value": 262144},
                        {"op": "set", "key": "rope_scaling", "value": {"rope_type": "default"}},
                        {"op": "set", "key": "rope_theta", "value": 2e7}]
    phi3 = edit_config(published("phi-3-mini-128k-instruct-su.json"), {"rope_type": "default", "rope_theta": 2e7},
                       262144)
    assert phi3.ops[0] == {"op": "remove", "key": "rope_scaling"}  # transformers 4's Phi3Config takes no other


def test_a_file_with_rope_parameters_gets_the_same_block_in_both():
    config = {**published("llama-3.1-8b.json"), "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}}
    block = {"rope_type": "yarn", "factor": 64.0, "original_max_position_embeddings": 8192, "rope_theta": 5e5}
    edit = edit_config(config, block, 524288)
    assert edit.config["rope_parameters"] == block
    assert edit.config["rope_scaling"] == {key: value for key, value in block.items() if key != "rope_theta"}
    assert edit.config["max_position_embeddings"] == 524288


def test_per_layer_type_keeps_the_sliding_set():
    config = published("gemma-3-4b-it.json")
    blocks = {"full_attention": {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 16384,
                                 "rope_theta": 1e6},
              "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}
    assert is_per_layer_type(blocks) and not is_per_layer_type(blocks["full_attention"])
    edit = edit_config(config, blocks, 524288)
    text = edit.config["text_config"]
    assert text["rope_local_base_freq"] == 10000.0 and text["rope_theta"] == 1e6
    assert text["rope_scaling"] == {"rope_type": "yarn", "factor": 32.0, "original_max_position_embeddings": 16384}
    assert all(op["key"].startswith("text_config.") for op in edit.ops)


def test_a_factor_with_no_whole_length_is_named():
    config = published("llama-2-7b.json")
    block = {"rope_type": "yarn", "factor": 1 / 0.3, "original_max_position_embeddings": 4096, "rope_theta": 1e4}
    edit = edit_config(config, block, 13653)
    assert any("no whole number of positions" in note for note in edit.notes)
