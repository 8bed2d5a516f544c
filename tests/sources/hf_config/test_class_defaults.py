"""posemb's table of transformers' config-class defaults equals transformers' own classes, entry by entry.

Each class is instantiated with nothing but what its ``__post_init__`` needs to keep a
field as declared, and the attribute is read back; ``default_theta`` is read from the
``rope_parameters`` the class builds for a file that gives no base.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

transformers = pytest.importorskip("transformers")

from posemb_cli.sources.hf_config.class_defaults import CLASS_DEFAULTS  # noqa: E402
from posemb_cli.sources.naming.read import read_model  # noqa: E402

# A class's __post_init__ rewrites these fields from others; set what keeps the declared default in place.
_KEEP = {"sliding_window": {"use_sliding_window": True}}
_REWRITTEN = {("Cohere2Config", "head_dim"), ("DeepseekV3Config", "head_dim")}


def _classes() -> list[tuple[str, str, object]]:
    return [(family, entry.name, getattr(transformers, entry.name)) for family, entry in CLASS_DEFAULTS.items()]


@pytest.mark.parametrize("family, name, cls", _classes(), ids=[family for family, _, _ in _classes()])
def test_every_default_is_the_classes(family, name, cls):
    declared = {field.name: field.default for field in dataclasses.fields(cls)}
    table = CLASS_DEFAULTS[family]
    assert cls.model_type == family
    for field, value in table.fields.items():
        assert declared[field] == value, (name, field)
        keep = {k: v for k, v in _KEEP.get(field, {}).items() if k in declared}
        if (name, field) not in _REWRITTEN:
            assert getattr(cls(**keep), field) == value, (name, field)
    # the fields posemb reads that the class leaves to __post_init__ (None) are not in the table
    for field in ("num_key_value_heads", "head_dim", "sliding_window"):
        if field in declared and declared[field] is None:
            assert field not in table.fields, (name, field)


@pytest.mark.parametrize("family, name, cls", _classes(), ids=[family for family, _, _ in _classes()])
def test_the_default_base_is_the_classes(family, name, cls):
    built = cls().rope_parameters
    expected = CLASS_DEFAULTS[family].rope_theta
    if isinstance(expected, dict):
        assert {layer: built[layer]["rope_theta"] for layer in expected} == expected
    else:
        assert built["rope_theta"] == expected


def test_a_family_base_is_read_where_the_file_gives_none(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "gpt_oss", "hidden_size": 64, "num_attention_heads": 4,
                                "head_dim": 16, "num_hidden_layers": 2, "max_position_embeddings": 128,
                                "rope_scaling": None}))
    reading = read_model(str(path))
    config = transformers.AutoConfig.from_pretrained(str(tmp_path))
    assert reading.rope_sets[0].base == config.rope_parameters["rope_theta"] == 150_000.0
    assert reading.rope_sets[0].decided_by == "no rope_theta: transformers' GptOssConfig default 150000"
    assert not reading.rope_sets[0].base_defaulted


def test_null_is_not_absent(tmp_path):
    """A field written as null stays null, as transformers keeps it: no class default replaces it."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 4,
                                "num_hidden_layers": 2, "max_position_embeddings": 128, "sliding_window": None}))
    assert [layer.window for layer in read_model(str(path)).layers] == [None, None]
    path.write_text(json.dumps({"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 4,
                                "num_hidden_layers": 2, "max_position_embeddings": 128}))
    reading = read_model(str(path))
    assert [layer.window for layer in reading.layers] == [4096, 4096]
    assert "sliding_window absent: transformers' MistralConfig default 4096" in reading.rules
