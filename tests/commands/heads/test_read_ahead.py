"""`posemb heads` reads each layer once, into two reused buffers, one layer ahead of the one it measures (and a
safetensors checkpoint without torch).

The values a layer's reading gives are held bit for bit to the reading they replace, written out
here: each block of key/value groups read afresh through torch (bfloat16 widened by its bits, other
dtypes cast), llama.cpp's rows put back with a copy, then the gains and centring on that fresh array
(tiny models of every dtype and norm kind, saved by transformers, and a GGUF file). So the figures
cannot move: the products are then the same calls on arrays of the same shapes and values.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.commands.heads.test_transformers import saved_model

transformers = pytest.importorskip("transformers")


def _fresh_float(rows: torch.Tensor) -> np.ndarray:
    if rows.dtype == torch.bfloat16:
        bits = rows.contiguous().view(torch.int16).numpy().view(np.uint16)
        return np.left_shift(bits, 16, dtype=np.uint32).view(np.float32)
    return rows.numpy().astype(np.float64 if rows.dtype == torch.float64 else np.float32)


def reference_blocks(source, layer: int, per_block: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The earlier reading: every block's q (B, J, E, N) and k (B, E, N), converted afresh block by block."""
    from posemb_cli.sources.weights.qk_names import FUSED_PER_HEAD
    from posemb_cli.sources.weights.qk_weights import unpermute_rows

    shape, rule, roles, tensors = source.shape, source.rule, source.names.layers[layer], source.tensors
    e, h, g = shape.head_dim, shape.heads, shape.kv_heads
    if source.names.fused is None:
        q_rows, k_rows = tensors.read(roles.get("q")).reshape(h, e, -1), tensors.read(roles.get("k")).reshape(g, e, -1)
    elif source.names.fused == FUSED_PER_HEAD:
        per_head = tensors.read(roles.get("qkv")).reshape(h, 3, e, shape.hidden)
        q_rows, k_rows = per_head[:, 0], per_head[:, 1]
    else:
        qkv = tensors.read(roles.get("qkv"))
        q_rows, k_rows = qkv[: h * e].reshape(h, e, -1), qkv[h * e:(h + g) * e].reshape(g, e, -1)

    def gain_of(name, heads):
        if name is None:
            return None
        gain = tensors.read(name).to(torch.float64).numpy().reshape(-1) + rule.offset
        return np.tile(gain, heads) if gain.size == e else gain

    gain = gain_of(roles.get("norm"), 1)
    q_gain, k_gain = gain_of(roles.get("q_norm"), h), gain_of(roles.get("k_norm"), g)

    def applied(rows, row_gain, heads):
        w = _fresh_float(rows.reshape(heads * e, -1))
        if source.unpermute:
            w = unpermute_rows(w, heads)
        if gain is not None:
            w *= gain.astype(w.dtype)
            if rule.norm == "layer":
                w -= w.mean(axis=1, dtype=np.float64, keepdims=True)
        if row_gain is not None:
            if rule.qk_norm == "layer":
                per_head = w.reshape(heads, e, -1)
                per_head -= per_head.mean(axis=1, dtype=np.float64, keepdims=True)
            w *= row_gain.astype(w.dtype)[:, None]
        return w

    per, blocks = h // g, []
    for start in range(0, g, per_block):
        stop = min(g, start + per_block)
        q = applied(q_rows[start * per:stop * per], None if q_gain is None else
                    q_gain[start * per * e:stop * per * e], (stop - start) * per)
        k = applied(k_rows[start:stop], None if k_gain is None else k_gain[start * e:stop * e], stop - start)
        blocks.append((q.reshape(stop - start, per, e, -1), k.reshape(stop - start, e, -1)))
    return blocks


def _source(path: str):
    from posemb_cli.sources.naming.read import read_checkpoint_model
    from posemb_cli.sources.weights.qk_source import open_qk_source
    from posemb_cli.sources.weights.tensor_files import open_tensor_file

    tensors = open_tensor_file(path)
    return open_qk_source(tensors, read_checkpoint_model(tensors, path), f"--checkpoint {path}")


CASES = [("llama_gqa", torch.bfloat16), ("llama_gqa", torch.float16), ("llama_gqa", torch.float64),
         ("phi_layernorm", torch.bfloat16), ("phi_layernorm", torch.float32), ("gpt_neox_fused", torch.bfloat16),
         ("phi3_fused", torch.float16), ("cohere_interleaved", torch.bfloat16), ("gemma3", torch.bfloat16),
         ("qwen3", torch.float32), ("olmo2", torch.bfloat16)]


@pytest.mark.parametrize(("family", "dtype"), CASES)
def test_each_block_is_the_earlier_readings_bit_for_bit(tmp_path, family, dtype):
    from posemb_cli.sources.weights.qk_weights import LayerBuffers

    model = saved_model(family, tmp_path / "float")
    model.to(dtype).save_pretrained(tmp_path / "saved")
    source = _source(str(tmp_path / "saved"))
    buffers = LayerBuffers()
    for per_block in (1, 2):
        for layer in source.layers:
            read = source.read(layer, buffers, per_block)
            expected = reference_blocks(source, layer, per_block)
            for index, start in enumerate(range(0, read.groups, per_block)):
                q, k = read.block(start, min(read.groups, start + per_block))
                assert q.dtype == expected[index][0].dtype and q.shape == expected[index][0].shape
                np.testing.assert_array_equal(q, expected[index][0])
                np.testing.assert_array_equal(k, expected[index][1])
                assert q.flags.c_contiguous and k.flags.c_contiguous  # the products see the same layout


def test_a_gguf_files_rows_are_put_back_as_before(tmp_path):
    pytest.importorskip("gguf")
    from posemb_cli.sources.weights.qk_weights import LayerBuffers

    from tests.commands.heads.test_gguf import _llama_meta, gguf_tensors
    from tests.gguf_files import write_gguf

    model = saved_model("llama_gqa", tmp_path / "hf")
    path = write_gguf(tmp_path / "llama.gguf", "llama", _llama_meta(model.config), gguf_tensors(model, "llama", None),
                      tokens=model.config.vocab_size)
    source = _source(path)
    assert source.unpermute
    for layer in source.layers:
        read = source.read(layer, LayerBuffers(), 1)
        for start, (q, k) in enumerate(reference_blocks(source, layer, 1)):
            np.testing.assert_array_equal(read.block(start, start + 1)[0], q)
            np.testing.assert_array_equal(read.block(start, start + 1)[1], k)


def test_buffers_are_reused_layer_after_layer(tmp_path):
    from posemb_cli.sources.weights.qk_weights import LayerBuffers

    saved_model("llama_gqa", tmp_path / "float").to(torch.bfloat16).save_pretrained(tmp_path / "bf16")
    source = _source(str(tmp_path / "bf16"))
    buffers = LayerBuffers()
    first = source.read(source.layers[0], buffers, 1)
    held = dict(buffers.arrays)
    assert set(held) == {"q", "k", "stored"}
    assert np.shares_memory(first.q, held["q"]) and np.shares_memory(first.k, held["k"])
    second = source.read(source.layers[1], buffers, 1)
    assert all(buffers.arrays[role] is held[role] for role in held)  # nothing allocated for the second layer
    assert np.shares_memory(second.q, held["q"])


def test_reading_runs_at_most_one_layer_ahead_of_measuring(tmp_path, monkeypatch):
    import posemb_cli.commands.heads.measure as heads
    import posemb_cli.sources.weights.tensor_files as tensor_files
    from posemb_cli.commands.heads.measure import run_heads

    config = transformers.LlamaConfig(vocab_size=50, hidden_size=64, num_hidden_layers=5, num_attention_heads=4,
                                      num_key_value_heads=2, intermediate_size=32, max_position_embeddings=64)
    transformers.LlamaForCausalLM(config).to(torch.bfloat16).save_pretrained(tmp_path / "five")
    events: list[tuple[str, int]] = []
    opened, measure = tensor_files.open_tensor_file, heads._layer

    def recording(path, **kwargs):
        found = opened(path, **kwargs)
        locate = found.locator

        def located(name):
            if name.startswith("model.layers."):
                events.append(("read", int(name.split(".")[2])))
            return locate(name)

        object.__setattr__(found, "locator", located)
        return found

    def measured(record, *args, **kwargs):
        result = measure(record, *args, **kwargs)
        events.append(("measured", record.layer))
        return result

    monkeypatch.setattr(tensor_files, "open_tensor_file", recording)
    monkeypatch.setattr(heads, "_layer", measured)
    run_heads(str(tmp_path / "five"))
    done: set[int] = set()
    for kind, layer in events:
        if kind == "measured":
            done.add(layer)
        else:  # layer L is read into the buffer layer L - 2 used: that one is measured by then
            assert all(earlier in done for earlier in range(layer - 1)), events
    assert [layer for kind, layer in events if kind == "measured"] == list(range(5))


def test_heads_on_safetensors_imports_no_torch(tmp_path):
    from tests.cli.test_startup import probe

    saved_model("llama_gqa", tmp_path / "float").to(torch.bfloat16).save_pretrained(tmp_path / "bf16")
    report = probe(["heads", "--checkpoint", str(tmp_path / "bf16"), "--json"])
    assert report["code"] == 0 and '"posemb.heads/1"' in report["shown"]
    assert "torch" not in report["heavy"]


def test_heads_on_a_quantised_gguf_imports_no_torch(tmp_path):
    """A GGUF file's quantised q and k are dequantised by the gguf package in NumPy: nothing needs torch."""
    gguf = pytest.importorskip("gguf")
    from tests.cli.test_startup import probe
    from tests.commands.heads.test_gguf import _llama_meta, gguf_tensors
    from tests.gguf_files import write_gguf

    model = saved_model("llama_gqa", tmp_path / "hf")
    path = write_gguf(tmp_path / "llama.gguf", "llama", _llama_meta(model.config),
                      gguf_tensors(model, "llama", gguf.GGMLQuantizationType.Q8_0), tokens=model.config.vocab_size)
    report = probe(["heads", str(path), "--json"])
    assert report["code"] == 0 and '"posemb.heads/1"' in report["shown"]
    assert "torch" not in report["heavy"]
