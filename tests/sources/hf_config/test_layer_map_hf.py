"""``layer_map`` against the layers transformers' own modeling code rotates, family by family.

Each config is written by transformers' config class (``save_pretrained``) and read by
``posemb inspect --config DIR --json``. The oracle runs the family's own model (random
weights, 8 tokens) with every ``apply_rotary*`` function of its modeling module wrapped:
a layer rotates when its attention calls one, and the angle it rotates position 1 by is
each pair's frequency (``atan2(sin, cos)``, free of any attention factor). Windows are the
attention modules' own ``sliding_window`` (Llama 4: its chunk size for chunked layers).
"""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.hf_rope import posemb_doc, saved  # noqa: E402

SMALL = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 64,
         "vocab_size": 100, "max_position_embeddings": 128, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2}


def _configs() -> dict:
    t = transformers
    return {
        "smollm3": (lambda: t.SmolLM3Config(**SMALL, num_hidden_layers=8, rope_theta=2e6), "smollm3", "SmolLM3Model"),
        "llama4": (lambda: t.Llama4TextConfig(**SMALL, num_hidden_layers=8, head_dim=16, intermediate_size_mlp=64,
                                              num_local_experts=2, attention_chunk_size=32),
                   "llama4", "Llama4TextModel"),
        "cohere2": (lambda: t.Cohere2Config(**SMALL, num_hidden_layers=8, sliding_window=16), "cohere2",
                    "Cohere2Model"),
        "gemma3": (lambda: t.Gemma3TextConfig(**SMALL, head_dim=16, num_hidden_layers=7, sliding_window=16),
                   "gemma3", "Gemma3TextModel"),
        "qwen2_vl": (lambda: t.Qwen2VLTextConfig(**SMALL, num_hidden_layers=2, rope_parameters={
            "rope_type": "default", "rope_theta": 1e6, "mrope_section": [2, 3, 3]}), "qwen2_vl", "Qwen2VLTextModel"),
        "llama": (lambda: t.LlamaConfig(**SMALL, num_hidden_layers=3, rope_theta=5e5), "llama", "LlamaModel"),
        "phi3": (lambda: t.Phi3Config(**SMALL, num_hidden_layers=2, sliding_window=16), "phi3",
                 "Phi3Model"),
        "deepseek_v3": (lambda: t.DeepseekV3Config(
            hidden_size=64, num_attention_heads=2, qk_rope_head_dim=16, qk_nope_head_dim=16, v_head_dim=16,
            num_hidden_layers=2, intermediate_size=64, moe_intermediate_size=32, vocab_size=100,
            max_position_embeddings=128, kv_lora_rank=16, q_lora_rank=16, n_routed_experts=4, num_experts_per_tok=2,
            n_group=1, topk_group=1, first_k_dense_replace=1), "deepseek_v3", "DeepseekV3Model"),
        "gpt_oss": (lambda: t.GptOssConfig(**SMALL, num_hidden_layers=4, head_dim=16, num_local_experts=2,
                                           num_experts_per_tok=1, sliding_window=16), "gpt_oss", "GptOssModel"),
    }


FAMILIES = tuple(_configs())


def _partner(fn, q, k, cos, args, kwargs) -> str:
    """How the function pairs input features: the feature whose output mixes with feature 0's is its partner."""
    def support(j: int) -> frozenset:
        basis = torch.zeros_like(q)
        basis[..., j] = 1.0
        out = fn(basis, torch.zeros_like(k), cos, *args, **kwargs)[0]
        return frozenset(int(i) for i in torch.nonzero(out.abs().reshape(-1, out.shape[-1]).amax(dim=0) > 1e-6))

    width = q.shape[-1]
    first = support(0)
    partners = [j for j in range(1, width) if support(j) == first]
    return {(1,): "interleaved", (width // 2,): "half"}.get(tuple(partners), str(partners))


def _rotations(model, module) -> dict[int, tuple[np.ndarray, str]]:
    """layer -> (the angle each rotated pair turns position 1 by, the pairing), from the model's own rotary calls."""
    calls: dict[int, tuple[np.ndarray, str]] = {}
    current: dict[str, int | None] = {"layer": None}
    patched = {name: fn for name, fn in vars(module).items() if name.startswith("apply_rotary") and callable(fn)
               and "vision" not in name}

    def wrap(name, fn):
        def recorder(q, k, cos, *args, **kwargs):
            if name == "apply_rotary_emb":  # Llama 4: complex frequencies, one per pair
                angle = torch.angle(cos.reshape(-1, cos.shape[-2], cos.shape[-1])[0, 1])
            else:
                sin = args[0] if args else kwargs["sin"]
                angle = torch.atan2(sin.reshape(-1, *sin.shape[-2:])[0, 1], cos.reshape(-1, *cos.shape[-2:])[0, 1])
                half = angle.shape[-1] // 2
                # cos/sin repeat each frequency: side by side (half) or interleaved (Cohere's repeat_interleave),
                # or hold each once (gpt-oss)
                if 2 * angle.shape[-1] != q.shape[-1]:
                    angle = angle[:half] if torch.equal(angle[:half], angle[half:]) else angle[0::2]
            calls[current["layer"]] = (angle.double().numpy(), _partner(fn, q, k, cos, args, kwargs))
            return fn(q, k, cos, *args, **kwargs)
        return recorder

    for name, fn in patched.items():
        setattr(module, name, wrap(name, fn))
    hooks = [layer.self_attn.register_forward_pre_hook(lambda _m, _a, index=index: current.update(layer=index))
             for index, layer in enumerate(model.layers)]
    try:
        with torch.no_grad():
            model(input_ids=torch.arange(8).reshape(1, 8))
    finally:
        for hook in hooks:
            hook.remove()
        for name, fn in patched.items():
            setattr(module, name, fn)
    return calls


def _windows(model, config) -> list[int | None]:
    out = []
    for index, layer in enumerate(model.layers):
        if getattr(config, "layer_types", None) and config.layer_types[index] == "chunked_attention":
            out.append(config.attention_chunk_size)
        else:
            out.append(getattr(layer.self_attn, "sliding_window", getattr(config, "sliding_window", None)))
    return out


def _oracle(folder: str, module_name: str, model_class: str):
    config = transformers.AutoConfig.from_pretrained(folder)  # transformers reads the file posemb read
    config = getattr(config, "text_config", config) if model_class.endswith("TextModel") else config
    module = importlib.import_module(f"transformers.models.{module_name}.modeling_{module_name}")
    torch.manual_seed(0)
    model = getattr(module, model_class)(config).eval()
    return _rotations(model, module), _windows(model, config)


def _frequencies(doc: dict) -> dict[str, tuple[np.ndarray, str]]:
    """rope set -> posemb's frequencies and pairing of that set (its layer type's analysis, or the one analysis)."""
    entries = doc.get("layer_types") or [doc]
    return {entry["source"]["rope_set"]: (np.array([band["inv_freq"] for band in entry["bands"]]),
                                          entry["source"]["layout"]) for entry in entries}


def _check(folder: str, module_name: str, model_class: str) -> dict:
    doc = posemb_doc(folder)
    rotations, windows = _oracle(folder, module_name, model_class)
    layer_map = doc["layer_map"]
    assert [entry["layer"] for entry in layer_map] == list(range(len(windows)))
    assert {entry["layer"] for entry in layer_map if entry["position"] == "rope"} == set(rotations)
    assert all(entry["position"] in ("rope", "none") for entry in layer_map)
    frequencies = _frequencies(doc)
    for layer, (angle, pairing) in rotations.items():
        ours, layout = frequencies[layer_map[layer]["rope_set"]]
        np.testing.assert_allclose(ours, angle, rtol=2e-6, atol=1e-12)
        assert layout == pairing, layer
    assert [entry["window"] for entry in layer_map] == windows
    return doc


@pytest.mark.parametrize("family", FAMILIES)
def test_layer_map_equals_the_layers_transformers_rotates(tmp_path, family):
    make, module_name, model_class = _configs()[family]
    _check(saved(tmp_path, make()), module_name, model_class)


@pytest.mark.parametrize("family, drop", [("smollm3", "no_rope_layers"), ("cohere2", "layer_types"),
                                          ("gemma3", "layer_types"), ("gpt_oss", "layer_types"),
                                          ("llama4", "no_rope_layers")])
def test_a_file_silent_on_layers_gets_the_family_rule(tmp_path, family, drop):
    make, module_name, model_class = _configs()[family]
    folder = saved(tmp_path, make())
    path = f"{folder}/config.json"
    with open(path) as handle:
        fields = json.load(handle)
    fields.pop(drop)
    fields.pop("layer_types", None)  # a file from before transformers wrote them
    with open(path, "w") as handle:
        json.dump(fields, handle)
    doc = _check(folder, module_name, model_class)
    assert doc["model"]["rules"], "the rule used where the file is silent is stated"


def test_gemma3_older_file_with_a_local_base_and_global_scaling(tmp_path):
    """Gemma 3 as first published: rope_scaling applies to global layers only, rope_local_base_freq to the rest."""
    folder = tmp_path / "gemma3"
    folder.mkdir()
    fields = {"model_type": "gemma3_text", **SMALL, "head_dim": 16, "num_hidden_layers": 7, "sliding_window": 16,
              "rope_theta": 1e6, "rope_local_base_freq": 1e4, "rope_scaling": {"rope_type": "linear", "factor": 8.0},
              "sliding_window_pattern": 6}
    (folder / "config.json").write_text(json.dumps(fields))
    doc = _check(str(folder), "gemma3", "Gemma3TextModel")
    sets = {entry["source"]["rope_set"]: entry["source"] for entry in doc["layer_types"]}
    assert sets["full_attention"]["rope_theta"] == 1e6 and sets["full_attention"]["rope_type"] == "linear"
    assert sets["sliding_attention"]["rope_theta"] == 1e4 and sets["sliding_attention"]["rope_type"] == "none"


def test_model_shape_is_the_models_not_one_heads(tmp_path):
    config = transformers.LlamaConfig(**SMALL, num_hidden_layers=3)
    doc = posemb_doc(saved(tmp_path, config))
    model = doc["model"]
    assert (model["hidden_size"], model["vocab_size"], model["layers"], model["heads"], model["kv_heads"],
            model["head_dim"]) == (64, 100, 3, 4, 2, 16)
    assert doc["params"]["token"] == 100 * 64  # the token table, vocab x hidden; one head is 16 wide
    assert doc["config"]["dim"] == 16  # the width analysed: one head
