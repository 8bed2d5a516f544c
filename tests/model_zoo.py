"""Tiny random models of real families, saved by transformers' own ``save_pretrained`` (safetensors).

Each family is built once per test session into one temporary folder
(``zoo_model(name)`` returns its directory), with hidden size 32, one or two
layers, a vocabulary near 100 and 64 to 128 positions, so the whole zoo builds
in seconds. The weights are random: the tests compare what posemb reads with
the tensors themselves (read back with safetensors), never with remembered figures.
"""

from __future__ import annotations

import functools
import os
import tempfile

import torch

SMALL = {"vocab_size": 99, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4,
         "intermediate_size": 64, "max_position_embeddings": 64}


def _bert_like(config_class):
    return lambda t: getattr(t, config_class)(**SMALL)


def _configs() -> dict:
    """family -> (function of the transformers module giving the config, model class name)."""
    return {
        "gpt2": (lambda t: t.GPT2Config(vocab_size=99, n_embd=32, n_layer=1, n_head=4, n_positions=64),
                 "GPT2LMHeadModel"),
        "gpt_neo": (lambda t: t.GPTNeoConfig(vocab_size=99, hidden_size=32, num_layers=2, num_heads=4,
                                             attention_types=[[["global", "local"], 1]], max_position_embeddings=64,
                                             window_size=16), "GPTNeoForCausalLM"),
        "opt": (lambda t: t.OPTConfig(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                                      ffn_dim=64, max_position_embeddings=64, word_embed_proj_dim=32),
                "OPTForCausalLM"),
        "opt_proj": (lambda t: t.OPTConfig(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                                           ffn_dim=64, max_position_embeddings=64, word_embed_proj_dim=16),
                     "OPTForCausalLM"),
        "bart": (lambda t: t.BartConfig(vocab_size=99, d_model=32, encoder_layers=1, decoder_layers=1,
                                        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                                        decoder_ffn_dim=64, max_position_embeddings=64),
                 "BartModel"),
        "mbart": (lambda t: t.MBartConfig(vocab_size=99, d_model=32, encoder_layers=1, decoder_layers=1,
                                          encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64,
                                          decoder_ffn_dim=64, max_position_embeddings=64),
                  "MBartModel"),
        "roberta": (_bert_like("RobertaConfig"), "RobertaModel"),
        "xlm-roberta": (_bert_like("XLMRobertaConfig"), "XLMRobertaModel"),
        "camembert": (lambda t: t.CamembertConfig(**{**SMALL, "pad_token_id": 3}), "CamembertModel"),
        "bert": (_bert_like("BertConfig"), "BertModel"),
        "distilbert": (lambda t: t.DistilBertConfig(vocab_size=99, dim=32, n_layers=1, n_heads=4, hidden_dim=64,
                                                    max_position_embeddings=64), "DistilBertModel"),
        "distilbert_sinusoidal": (lambda t: t.DistilBertConfig(vocab_size=99, dim=32, n_layers=1, n_heads=4,
                                                               hidden_dim=64, max_position_embeddings=64,
                                                               sinusoidal_pos_embds=True), "DistilBertModel"),
        "electra": (lambda t: t.ElectraConfig(**SMALL, embedding_size=32), "ElectraModel"),
        "albert": (lambda t: t.AlbertConfig(**SMALL, embedding_size=16), "AlbertModel"),
        "whisper": (lambda t: t.WhisperConfig(vocab_size=99, d_model=32, encoder_layers=1, decoder_layers=1,
                                              encoder_attention_heads=4, decoder_attention_heads=4,
                                              encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=8,
                                              max_source_positions=32, max_target_positions=64,
                                              pad_token_id=98, bos_token_id=97, eos_token_id=96,
                                              decoder_start_token_id=97), "WhisperModel"),
        "vit": (lambda t: t.ViTConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                                      intermediate_size=64, image_size=32, patch_size=8), "ViTModel"),
        "clip_vision": (lambda t: t.CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                                     num_attention_heads=4, image_size=32, patch_size=8),
                        "CLIPVisionModel"),
        "clip": (lambda t: t.CLIPConfig(
            text_config={"vocab_size": 99, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                         "num_attention_heads": 4, "max_position_embeddings": 64},
            vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                           "num_attention_heads": 4, "image_size": 32, "patch_size": 8},
            projection_dim=16), "CLIPModel"),
        "deberta-v2": (lambda t: t.DebertaV2Config(**SMALL, relative_attention=True, position_biased_input=False,
                                                   max_relative_positions=-1, pos_att_type=["p2c", "c2p"],
                                                   position_buckets=16), "DebertaV2Model"),
        "t5": (lambda t: t.T5Config(vocab_size=99, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_heads=4,
                                    relative_attention_num_buckets=8, relative_attention_max_distance=20),
               "T5Model"),
        "bloom": (lambda t: t.BloomConfig(vocab_size=99, hidden_size=32, n_layer=1, n_head=4), "BloomModel"),
        "mpt": (lambda t: t.MptConfig(vocab_size=99, d_model=32, n_heads=4, n_layers=1, max_seq_len=64,
                                      expansion_ratio=2), "MptModel"),
        "llama": (lambda t: t.LlamaConfig(**SMALL, num_key_value_heads=4), "LlamaModel"),
        "phi": (lambda t: t.PhiConfig(**SMALL, partial_rotary_factor=0.5), "PhiModel"),
        "gpt_neox": (lambda t: t.GPTNeoXConfig(**SMALL, rotary_pct=0.5), "GPTNeoXModel"),
    }


FAMILIES = tuple(_configs())


@functools.lru_cache(maxsize=1)
def _zoo_root() -> str:
    return tempfile.mkdtemp(prefix="posemb-zoo-")


@functools.cache
def zoo_model(name: str) -> str:
    """The directory of the tiny ``name`` model (config.json and model.safetensors), built on first use."""
    import transformers

    make_config, model_class = _configs()[name]
    torch.manual_seed(sum(map(ord, name)))
    model = getattr(transformers, model_class)(make_config(transformers))
    folder = os.path.join(_zoo_root(), name)
    model.save_pretrained(folder)
    return folder


def zoo_tensors(name: str) -> dict:
    """Every tensor of the saved model, read back with safetensors (the test's own reading)."""
    from safetensors.torch import load_file

    return load_file(os.path.join(zoo_model(name), "model.safetensors"))


def zoo_weights_only(name: str, folder) -> str:
    """A copy of the model's weights file alone, with no config.json beside it."""
    import shutil

    target = os.path.join(str(folder), f"{name}.safetensors")
    shutil.copy(os.path.join(zoo_model(name), "model.safetensors"), target)
    return target
