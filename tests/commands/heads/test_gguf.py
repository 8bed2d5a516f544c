"""`posemb heads` on GGUF files written here from tiny transformers models, as llama.cpp's converter writes them.

Llama's q and k rows are permuted with llama.cpp's ``LlamaModel.permute`` (written out below), Gemma 3's norm
gains stored as 1 + w (its converter's ``norm_shift``). Oracles: the same model's safetensors run (an F32
file must give identical figures; without posemb's un-permutation they differ: the negative control), and
transformers' own GGUF loader (``from_pretrained(folder, gguf_file=...)``), which dequantises and
un-permutes the file into its model classes, run through ``tests/heads_oracle``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

gguf = pytest.importorskip("gguf")
pytest.importorskip("accelerate")

from tests.commands.heads.test_transformers import RTOL, heads_json, layer_distances, saved_model  # noqa: E402
from tests.gguf_files import write_gguf  # noqa: E402
from tests.heads_oracle import oracle_kernel, oracle_pair_share, prepare  # noqa: E402

Q = gguf.GGMLQuantizationType


def llama_cpp_permute(w: np.ndarray, n_head: int, n_head_kv: int) -> np.ndarray:
    """convert_hf_to_gguf.py's LlamaModel.permute."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


_COMMON = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
           "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate",
           "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}
_LAYER = {"llama": {**_COMMON, "post_attention_layernorm": "ffn_norm"},
          "gemma3": {**_COMMON, "post_attention_layernorm": "post_attention_norm",
                     "pre_feedforward_layernorm": "ffn_norm", "post_feedforward_layernorm": "post_ffw_norm",
                     "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm"}}


def gguf_tensors(model, arch: str, quant) -> dict:
    """The model's tensors under llama.cpp's names, as its converter stores them for ``arch``."""
    config, out = model.config, {}
    heads, kv = config.num_attention_heads, config.num_key_value_heads
    for name, tensor in model.state_dict().items():
        array = tensor.detach().float().numpy()
        if name.endswith("embed_tokens.weight"):
            target = "token_embd.weight"
        elif name == "model.norm.weight":
            target = "output_norm.weight"
        elif name == "lm_head.weight":
            target = "output.weight"
        else:
            parts = name.split(".")
            index, rest = parts[2], ".".join(parts[3:-1])
            target = f"blk.{index}.{_LAYER[arch][rest]}.weight"
        if arch == "llama" and target.endswith("attn_q.weight"):
            array = llama_cpp_permute(array, heads, heads)
        if arch == "llama" and target.endswith("attn_k.weight"):
            array = llama_cpp_permute(array, heads, kv)
        if arch == "gemma3" and target.endswith("norm.weight"):
            array = array + 1.0  # the converter's norm_shift: the gain as applied
        two_dim = array.ndim == 2 and quant is not None
        out[target] = (gguf.quants.quantize(array, quant), quant) if two_dim else (np.ascontiguousarray(array), None)
    return out


def _llama_meta(config) -> dict:
    return {"context_length": config.max_position_embeddings, "embedding_length": config.hidden_size,
            "block_count": config.num_hidden_layers, "feed_forward_length": config.intermediate_size,
            "attention.head_count": config.num_attention_heads, "attention.head_count_kv": config.num_key_value_heads,
            "rope.freq_base": 10_000.0, "attention.layer_norm_rms_epsilon": config.rms_norm_eps,
            "rope.dimension_count": config.hidden_size // config.num_attention_heads, "vocab_size": config.vocab_size}


def _figures(doc: dict) -> tuple[np.ndarray, np.ndarray]:
    heads = [head for layer in doc["layers"] for head in layer["heads"]]
    return (np.array([head["pair_share"] for head in heads]),
            np.array([point["score"] for head in heads for point in head["kernel"]]))


def assert_matches_loaded(doc: dict, loaded, *, rotary: int, layers=None, share_rtol: float = 1e-5) -> None:
    """Every (or each listed) layer's kernel and pair shares equal the oracle's on the model transformers loaded."""
    prepare(loaded)
    for layer in doc["layers"] if layers is None else [doc["layers"][index] for index in layers]:
        kernel = oracle_kernel(loaded, layer["layer"], layer_distances(loaded.config, layer["layer"]))
        mine = np.array([[point["score"] for point in head["kernel"]] for head in layer["heads"]])
        np.testing.assert_allclose(mine, kernel, atol=RTOL * np.abs(kernel).max(), rtol=0)
        np.testing.assert_allclose([head["pair_share"] for head in layer["heads"]],
                                   oracle_pair_share(loaded, layer["layer"], "half", rotary), rtol=share_rtol,
                                   atol=share_rtol / 10)


@pytest.fixture()
def tiny_llama(tmp_path):
    model = saved_model("llama_gqa", tmp_path / "hf")
    return model, str(tmp_path / "hf")


def test_f32_gguf_gives_the_safetensors_figures_and_needs_the_unpermutation(tmp_path, tiny_llama, monkeypatch):
    model, folder = tiny_llama
    path = write_gguf(tmp_path / "llama.gguf", "llama", _llama_meta(model.config), gguf_tensors(model, "llama", None),
                      tokens=model.config.vocab_size)
    shares, kernels = _figures(heads_json(folder))
    from_gguf = heads_json(path)
    assert from_gguf["source"]["qk_rows_unpermuted"] is True
    np.testing.assert_allclose(_figures(from_gguf)[0], shares, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(_figures(from_gguf)[1], kernels, rtol=1e-9, atol=1e-9 * np.abs(kernels).max())

    import posemb_cli.sources.weights.qk_weights as qk_weights

    monkeypatch.setattr(qk_weights, "unpermuted_view",  # a reading that forgets the permutation
                        lambda w, heads: w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]))
    wrong_shares, wrong_kernels = _figures(heads_json(path))
    assert np.abs(wrong_shares - shares).max() > 0.05
    assert np.abs(wrong_kernels - kernels).max() > 0.05 * np.abs(kernels).max()


@pytest.mark.parametrize("quant", [Q.Q8_0, Q.Q4_0])
def test_quantised_llama_gguf_equals_transformers_gguf_loader(tmp_path, tiny_llama, quant):
    from transformers import AutoModelForCausalLM

    model, _folder = tiny_llama
    path = write_gguf(tmp_path / "llama.gguf", "llama", _llama_meta(model.config),
                      gguf_tensors(model, "llama", quant), tokens=model.config.vocab_size)
    loaded = AutoModelForCausalLM.from_pretrained(str(tmp_path), gguf_file="llama.gguf", torch_dtype=torch.float32)
    assert_matches_loaded(heads_json(path), loaded, rotary=16)


def _gemma3_model(folder):
    import transformers

    config = transformers.Gemma3TextConfig(
        vocab_size=64, hidden_size=64, num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=1, head_dim=32,
        intermediate_size=32, max_position_embeddings=128, sliding_window=16,
        rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                         "full_attention": {"rope_type": "default", "rope_theta": 1_000_000.0}})
    torch.manual_seed(3)
    model = transformers.Gemma3ForCausalLM(config)
    for parameter in model.parameters():
        parameter.data.normal_(0.0, 0.3)
    model.save_pretrained(folder)
    return model


def test_gemma3_gguf_equals_transformers_gguf_loader_and_the_safetensors_run(tmp_path):
    from transformers import AutoModelForCausalLM

    model = _gemma3_model(tmp_path / "hf")
    config = model.config
    meta = {"context_length": 128, "embedding_length": 64, "block_count": 6, "feed_forward_length": 32,
            "attention.head_count": 4, "attention.head_count_kv": 1, "attention.key_length": 32,
            "attention.value_length": 32, "rope.freq_base": 1_000_000.0, "attention.sliding_window": 16,
            "attention.layer_norm_rms_epsilon": config.rms_norm_eps, "rope.dimension_count": 32}
    path = write_gguf(tmp_path / "gemma3.gguf", "gemma3", meta, gguf_tensors(model, "gemma3", None), tokens=64)
    doc = heads_json(path)
    assert [layer["rope_set"] for layer in doc["layers"]] == ["sliding_attention"] * 5 + ["full_attention"]
    np.testing.assert_allclose(_figures(doc)[0], _figures(heads_json(str(tmp_path / "hf")))[0], rtol=1e-6)
    loaded = AutoModelForCausalLM.from_pretrained(str(tmp_path), gguf_file="gemma3.gguf", torch_dtype=torch.float32)
    assert loaded.config.layer_types == [layer["rope_set"] for layer in doc["layers"]]
    assert_matches_loaded(doc, loaded, rotary=32)
