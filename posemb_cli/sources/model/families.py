"""What each model family (a config's ``model_type``) uses for position, as transformers builds it.

Plain data, no logic: ``model_kind.py`` reads these tables. Kinds:

- ``learned``: an absolute table in the weights, added to the token embeddings.
- ``sinusoidal``: a fixed sin/cos table (kept in the weights by transformers).
- ``rope``, ``alibi``: act inside attention; the config alone gives the signal.
- ``relative_bias``: T5's learned bias per (bucket of signed distance, head).
- ``relative_embeddings``: DeBERTa's learned relative position embeddings.
- ``none``: no position signal at all.
"""

from __future__ import annotations

KINDS = ("learned", "sinusoidal", "rope", "alibi", "relative_bias", "relative_embeddings", "none")

LEARNED_FAMILIES = frozenset({
    "gpt2", "gpt_neo", "gpt_bigcode", "opt", "bart", "mbart", "plbart", "biogpt", "roberta", "xlm-roberta",
    "xlm-roberta-xl", "camembert", "longformer", "roberta-prelayernorm", "data2vec-text", "ibert", "mpnet", "bert",
    "distilbert", "electra", "albert", "whisper", "vit", "clip", "clip_text_model", "clip_vision_model", "siglip",
    "siglip_vision_model", "siglip_text_model", "layoutlm", "xlm",
})
ROPE_FAMILIES = frozenset({
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "phi", "phi3", "gpt_neox", "gptj",
    "gemma", "gemma2", "gemma3", "gemma3_text", "stablelm", "falcon", "olmo", "olmo2", "cohere", "starcoder2",
    "deepseek_v2", "deepseek_v3", "glm", "glm4", "granite", "internlm2", "persimmon", "smollm3",
})
# RoPE families whose modeling code pairs feature 2i with 2i + 1 (interleaved) rather than i with i + d/2 (half):
# their rotate_half takes x[..., 0::2], or they view pairs as complex numbers. DeepSeek-V3 has a field for it,
# rope_interleave, which its config class sets true unless told otherwise (sources/hf_config/class_defaults.py).
INTERLEAVED_FAMILIES = frozenset({
    "cohere", "cohere2", "cohere2_moe", "glm", "glm4", "glm4v", "glm4v_text", "ernie4_5", "ernie4_5_moe", "helium",
    "llama4", "llama4_text", "gptj", "codegen", "deepseek_v2", "moonshine",
})
ALIBI_FAMILIES = frozenset({"bloom", "mpt"})
RELATIVE_BIAS_FAMILIES = frozenset({"t5", "mt5", "umt5", "longt5", "switch_transformers"})
RELATIVE_EMBEDDING_FAMILIES = frozenset({"deberta", "deberta-v2"})

# Families whose learned table reserves leading rows.
PADDING_FAMILIES = frozenset({  # positions start after padding_idx: offset pad_token_id + 1
    "roberta", "xlm-roberta", "xlm-roberta-xl", "camembert", "longformer", "roberta-prelayernorm",
    "data2vec-text", "ibert", "mpnet",
})
OFFSET_TWO_FAMILIES = frozenset({"opt", "bart", "mbart", "plbart", "biogpt"})  # fairseq's offset of 2
CLASS_ROW_FAMILIES = frozenset({"vit", "clip_vision_model"})  # row 0 belongs to the class token

# Family-specific names of the fields a kind needs, most common first.
HEAD_FIELDS = ("num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads")
WIDTH_FIELDS = ("hidden_size", "d_model", "n_embd", "n_embed", "dim")
CTX_FIELDS = ("max_position_embeddings", "n_positions", "max_seq_len", "max_sequence_length", "seq_length",
              "max_source_positions")

# Tensor names, matched with or without their prefixes.
POSITION_NAMES = (
    "wpe.weight", "position_embeddings.weight", "embed_positions.weight", "position_embedding.weight",
    "pos_embed.weight", "pos_emb.weight", "positional_embedding.weight", "pos_embedding.weight",
    "wpe", "position_embeddings", "embed_positions", "position_embedding", "pos_embed", "pos_emb",
    "positional_embedding", "pos_embedding",
    "position_embd.weight",  # GGUF (llama.cpp) names
)
TOKEN_NAMES = (
    "wte.weight", "word_embeddings.weight", "embed_tokens.weight", "tok_embeddings.weight",
    "token_embedding.weight", "embed_in.weight", "tok_emb.weight", "shared.weight",
    "wte", "word_embeddings", "embed_tokens", "tok_embeddings", "token_embedding", "tok_emb", "shared",
    "token_embd.weight",  # GGUF (llama.cpp) names
)
RELATIVE_BIAS_NAMES = ("relative_attention_bias.weight",)
RELATIVE_EMBEDDING_NAMES = ("rel_embeddings.weight",)
ROPE_NAMES = ("rotary_emb.inv_freq",)
