"""Published config.json files read as transformers reads them: each RoPE set's frequencies and each layer's window.

``posemb inspect --config FILE --json`` on every file of the panel (tests/sources/published/)
against transformers' own loading of the same file (tests/sources/published_panel.py).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from tests.hf_rope import posemb_doc  # noqa: E402
from tests.sources.published_panel import FILES, folder_of, reference, transformers_config, windows  # noqa: E402


def _sets(doc: dict) -> list[dict]:
    return doc.get("layer_types") or [doc]


@pytest.fixture(scope="module")
def inspected(tmp_path_factory):
    """name -> (the model directory, ``posemb inspect --json`` of it): one run per file, shared by the tests."""
    cache: dict[str, tuple[str, dict]] = {}

    def get(name: str) -> tuple[str, dict]:
        if name not in cache:
            folder = folder_of(tmp_path_factory.mktemp("published"), name)
            cache[name] = folder, posemb_doc(folder)
        return cache[name]
    return get


@pytest.mark.parametrize("name", FILES)
def test_frequencies_and_windows_equal_transformers(inspected, name):
    folder, doc = inspected(name)
    config, family = transformers_config(folder)
    for entry in _sets(doc):
        source = entry["source"]
        layer_type = None if source["rope_set"] == "shared" else source["rope_set"]
        inv_freq, attention = reference(config, family, layer_type, source.get("frequencies_for_seq_len"))
        np.testing.assert_allclose([band["inv_freq"] for band in entry["bands"]], inv_freq, rtol=1e-6,
                                   err_msg=f"{name} {source['rope_set']}")
        np.testing.assert_allclose(entry["attention_factor"], attention, rtol=1e-6)
    assert [layer["window"] for layer in doc["layer_map"]] == windows(config, family)
    assert doc["model"]["layers"] == config.num_hidden_layers
    assert (doc["model"]["heads"], doc["model"]["kv_heads"]) == (config.num_attention_heads,
                                                                  config.num_key_value_heads)


def test_gemma3_4b_sparse_text_config_takes_the_class_defaults(inspected):
    doc = inspected("gemma-3-4b-it.json")[1]
    rules = doc["model"]["rules"]
    assert "text_config.num_attention_heads absent: transformers' Gemma3TextConfig default 8" in rules
    assert "text_config.head_dim absent: transformers' Gemma3TextConfig default 256" in rules
    assert (doc["model"]["heads"], doc["model"]["head_dim"], doc["model"]["vocab_size"]) == (8, 256, 262208)
    sets = {entry["source"]["rope_set"]: entry["source"] for entry in doc["layer_types"]}
    assert (sets["full_attention"]["rope_theta"], sets["sliding_attention"]["rope_theta"]) == (1e6, 1e4)
    assert "Gemma3TextConfig default 8" in doc["source"]["decided_by"]


@pytest.mark.parametrize("name", ["phi-3-mini-128k-instruct-su.json", "phi-3-mini-128k-instruct-longrope.json"])
def test_phi3_su_reads_as_longrope_from_the_top_level_length(inspected, name):
    doc = inspected(name)[1]
    source = doc["source"]
    assert source["rope_type"] == "longrope" and source["original_max_position_embeddings"] == 4096
    assert source["rope_type_in_file"] == name.split("-")[-1].removesuffix(".json")
    assert any("from original_max_position_embeddings" in rule for rule in doc["model"]["rules"])
