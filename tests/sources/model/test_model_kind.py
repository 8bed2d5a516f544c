"""The kind of position of each family, told from configs and weights that transformers itself saved."""

import json
import os

import pytest
from posemb_cli.errors import PosembError
from posemb_cli.sources.model.kind import classify_config, classify_tensors
from posemb_cli.sources.weights.tensor_files import open_tensor_file

from tests.model_zoo import FAMILIES, zoo_model

# family -> the kind its transformers implementation uses (read from each modeling file).
EXPECTED = {
    "gpt2": "learned", "gpt_neo": "learned", "opt": "learned", "opt_proj": "learned", "bart": "learned",
    "mbart": "learned", "roberta": "learned", "xlm-roberta": "learned", "camembert": "learned", "bert": "learned",
    "distilbert": "learned", "distilbert_sinusoidal": "sinusoidal", "electra": "learned", "albert": "learned",
    "whisper": "learned", "vit": "learned", "clip_vision": "learned", "clip": "learned",
    "deberta-v2": "relative_embeddings", "t5": "relative_bias", "bloom": "alibi", "mpt": "alibi", "llama": "rope",
    "phi": "rope", "gpt_neox": "rope",
}
# A bare weights file tells less: RoPE and ALiBi models keep no position tensor, a sinusoidal table looks learned.
FROM_NAMES = {**EXPECTED, "distilbert_sinusoidal": "learned", "bloom": None, "mpt": None, "llama": None,
              "phi": None, "gpt_neox": None}


def test_every_family_is_in_the_table():
    assert set(EXPECTED) == set(FAMILIES)


def _config(name: str) -> dict:
    with open(os.path.join(zoo_model(name), "config.json")) as handle:
        return json.load(handle)


@pytest.mark.parametrize("name", FAMILIES)
def test_kind_from_the_saved_config(name):
    kind = classify_config(_config(name), "config.json")
    assert kind.kind == EXPECTED[name]
    assert kind.decided_by.startswith("config.json ")
    assert kind.source() == {"kind": EXPECTED[name], "decided_by": kind.decided_by}


@pytest.mark.parametrize("name", FAMILIES)
def test_kind_from_the_tensor_names_alone(name):
    tensors = open_tensor_file(os.path.join(zoo_model(name), "model.safetensors"))
    kind = classify_tensors(tensors.shapes, "weights")
    assert (kind.kind if kind else None) == FROM_NAMES[name]
    if kind is not None:
        assert kind.decided_by.startswith("tensor name ") and kind.decided_by.split("'")[1] in tensors.shapes


def test_family_field_names_are_read():
    gpt2 = classify_config(_config("gpt2"), "c")
    assert gpt2.heads() == ("n_head", 4) and gpt2.width() == ("n_embd", 32) and gpt2.ctx() == ("n_positions", 64)
    mpt = classify_config(_config("mpt"), "c")
    assert mpt.heads() == ("n_heads", 4) and mpt.width() == ("d_model", 32) and mpt.ctx() == ("max_seq_len", 64)
    bloom = classify_config(_config("bloom"), "c")
    assert bloom.heads() == ("n_head", 4) and bloom.ctx() == (None, None)
    whisper = classify_config(_config("whisper"), "c")
    assert whisper.heads() == ("encoder_attention_heads", 4) and whisper.width() == ("d_model", 32)


@pytest.mark.parametrize("change, needle", [
    ({"model_type": "mpt", "attn_config": {"alibi": False}}, "attn_config.alibi"),
    ({"model_type": "mpt", "attn_config": {"alibi": True, "alibi_bias_max": 16}}, "alibi_bias_max"),
    ({"model_type": "bert", "position_embedding_type": "sandwich"}, "position_embedding_type"),
    ({"model_type": "mystery", "hidden_size": 32}, "model_type 'mystery'"),
    ({"hidden_size": 32, "num_attention_heads": 4}, "model_type None"),  # nothing tells: no RoPE assumed
])
def test_what_is_not_modelled_is_refused(change, needle):
    with pytest.raises(PosembError, match=needle):
        classify_config(change, "config.json")


def test_relative_key_bert_and_falcon_alibi():
    assert classify_config({"model_type": "bert", "position_embedding_type": "relative_key"}, "c").kind == \
        "relative_embeddings"
    assert classify_config({"model_type": "falcon", "alibi": True}, "c").kind == "alibi"
    assert classify_config({"model_type": "falcon", "alibi": False}, "c").kind == "rope"
    assert classify_config({"model_type": "deberta", "relative_attention": False}, "c").kind == "learned"
