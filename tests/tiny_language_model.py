"""A tiny Llama with a tiny tokenizer, saved as transformers and llama.cpp save them, for the measurement tests.

- ``tiny_tokenizer``: a byte-level BPE trained here on ``TEXT`` (tokenizers), with a
  beginning-of-sequence token it adds and an end-of-sequence token, wrapped in PreTrainedTokenizerFast.
- ``tiny_llama_folder``: a LlamaConfig model (trained length ``TRAINED``, base ``BASE``) with weights
  large enough that position changes the losses, saved with ``save_pretrained`` beside that tokenizer.
- ``tiny_llama_gguf``: the same model and tokenizer written with gguf.GGUFWriter as llama.cpp's
  converter writes them (q/k rows permuted, F32 tensors, the BPE vocabulary and merges).
- ``scalings``: none, linear, dynamic, yarn and llama3 for a window of ``length``, each with the
  rope_parameters transformers 5 takes and the frequencies of ``tests/position_oracles``' formulas.
"""

from __future__ import annotations

import json
import math

import numpy as np
import torch

from tests.position_oracles import dynamic_inv_freq, linear_inv_freq, llama3_inv_freq, plain_inv_freq, yarn_inv_freq

TRAINED = 32
BASE = 10_000.0
HEAD_DIM = 8
TEXT = (
    "The quick brown fox jumps over the lazy dog near the river bank. "
    "A small cat sleeps on the warm stone while the birds sing in the old oak tree. "
    "Every morning the baker opens the shop and the smell of fresh bread fills the street. "
    "Children walk to school along the road, talking about the games they will play at noon. "
    "In the evening the lights of the town come on one by one and the river turns dark and quiet. "
) * 3


def tiny_tokenizer():
    """A byte-level BPE of about 300 tokens with <s> (added in front of each text) and </s>."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<s>", "</s>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tokenizer.train_from_iterator([TEXT], trainer=trainer)
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 0)])
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>")


def tiny_llama(vocab: int):
    import transformers

    config = transformers.LlamaConfig(
        vocab_size=vocab, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=HEAD_DIM, max_position_embeddings=TRAINED, rms_norm_eps=1e-5,
        rope_parameters={"rope_type": "default", "rope_theta": BASE}, tie_word_embeddings=False,
        bos_token_id=0, eos_token_id=1)
    torch.manual_seed(7)
    model = transformers.LlamaForCausalLM(config)
    for name, parameter in model.named_parameters():
        if not name.endswith("norm.weight"):
            parameter.data.normal_(0.0, 0.25)  # trained-like magnitudes: attention, and so position, matters
    return model


def tiny_llama_folder(folder) -> tuple[object, object]:
    """The tiny model and tokenizer saved in ``folder`` (config.json, safetensors, tokenizer files)."""
    tokenizer = tiny_tokenizer()
    model = tiny_llama(len(tokenizer))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return model, tokenizer


def tiny_llama_gguf(path, model, tokenizer) -> str:
    """``model`` and ``tokenizer`` as llama.cpp's converter writes them, in F32."""
    import gguf

    from tests.commands.heads.test_gguf import gguf_tensors
    from tests.gguf_files import close_writer

    config = model.config
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(TRAINED)
    writer.add_embedding_length(config.hidden_size)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_freq_base(BASE)
    writer.add_rope_dimension_count(HEAD_DIM)
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_vocab_size(config.vocab_size)
    state = json.loads(tokenizer.backend_tokenizer.to_str())
    vocab = sorted(state["model"]["vocab"].items(), key=lambda item: item[1])
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list([token for token, _index in vocab])
    writer.add_token_types([3 if token in ("<s>", "</s>") else 1 for token, _index in vocab])
    merges = state["model"]["merges"]
    writer.add_token_merges([merge if isinstance(merge, str) else " ".join(merge) for merge in merges])
    writer.add_bos_token_id(0)
    writer.add_eos_token_id(1)
    writer.add_add_bos_token(True)
    for name, (array, raw_dtype) in gguf_tensors(model, "llama", None).items():
        writer.add_tensor(name, array) if raw_dtype is None else writer.add_tensor(name, array, raw_dtype=raw_dtype)
    return close_writer(writer, path)


def scalings(length: int, trained: int = TRAINED, factor: float = 2.0):
    """none, linear, dynamic, yarn and llama3 as transformers 5 takes them, with the oracles' frequencies at L."""
    from posemb_cli.runtime import RotaryExpectation, Scaling

    d = HEAD_DIM

    def scaling(name, parameters, inv_freq, attention=1.0):
        return Scaling(name, {"rope_theta": BASE, **parameters}, (RotaryExpectation(tuple(inv_freq), attention),))

    return [
        scaling("none", {"rope_type": "default"}, plain_inv_freq(d, BASE)),
        scaling("linear", {"rope_type": "linear", "factor": factor}, linear_inv_freq(d, BASE, factor)),
        scaling("dynamic", {"rope_type": "dynamic", "factor": factor},
                dynamic_inv_freq(d, BASE, factor, trained, length)),
        scaling("yarn", {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": trained},
                yarn_inv_freq(d, BASE, factor, trained), 0.1 * math.log(factor) + 1.0),
        scaling("llama3", {"rope_type": "llama3", "factor": factor, "original_max_position_embeddings": trained,
                           "low_freq_factor": 1.0, "high_freq_factor": 4.0},
                llama3_inv_freq(d, BASE, factor, trained)),
    ]


def write_text(path, repeats: int = 1) -> str:
    """``TEXT`` (``repeats`` times) written as UTF-8 to ``path``."""
    path.write_text(TEXT * repeats, encoding="utf-8")
    return str(path)


def ids_of(tokenizer, text: str) -> np.ndarray:
    return np.asarray(tokenizer(text)["input_ids"], dtype=np.int64)
