"""llama.cpp's per-architecture rules for what a GGUF file leaves unsaid: RoPE layout, sliding layers, NoPE layers.

Plain data and small functions, no file access. Sources (llama.cpp): ``llama_model_rope_type``
(which architectures rotate adjacent pairs, NORM, or pairs half a head apart, NEOX),
``load_hparams`` (each family's sliding-window pattern, local base, layers without RoPE;
``llama_hparams::set_swa_pattern``: layer il slides when ``il % N < N - 1``, so every Nth layer
is full), and ``convert_hf_to_gguf.py`` (which families' q/k rows ``LlamaModel.permute``
interleaves, so that NORM rotation of the stored rows equals Hugging Face's half layout).
"""

from __future__ import annotations

from dataclasses import dataclass

from posemb_cli.errors import FileError
from posemb_cli.sources.model.kind import ModelKind

# llama_model_rope_type: NORM rotates (2i, 2i + 1), NEOX (i, i + n_rot / 2), MROPE is NEOX by sections.
NORM_ARCHS = frozenset({
    "llama", "llada", "llama4", "deci", "baichuan", "starcoder", "internlm2", "minicpm", "xverse", "command-r",
    "cohere2", "olmo", "arctic", "deepseek", "deepseek2", "plm", "chatglm", "glm4", "granite", "granitemoe",
    "granitehybrid", "chameleon", "bailingmoe", "smollm3", "arcee", "ernie4_5", "ernie4_5-moe", "mistral3",
})
NEOX_ARCHS = frozenset({
    "falcon", "falcon-h1", "grok", "dbrx", "stablelm", "bitnet", "qwen", "qwen2", "dream", "qwen2moe", "qwen3",
    "qwen3moe", "olmo2", "olmoe", "phi2", "phi3", "phimoe", "plamo", "plamo2", "gemma", "gemma2", "gemma3",
    "starcoder2", "openelm", "gptneox", "codeshell", "orion", "nemotron", "exaone", "exaone4", "minicpm3",
    "dots1", "hunyuan-moe", "gpt-oss", "hunyuan-dense", "smallthinker", "glm4moe", "seed_oss",
})
MROPE_ARCHS = frozenset({"qwen2vl"})
ROPE_ARCHS = NORM_ARCHS | NEOX_ARCHS | MROPE_ARCHS
# convert_hf_to_gguf.py interleaves each head's two halves of q/k rows (LlamaModel.permute) for these.
PERMUTED_ARCHS = frozenset({
    "llama", "llada", "deci", "deepseek", "minicpm", "olmo", "arctic", "internlm2", "chameleon", "bailingmoe",
    "granite", "granitemoe", "granitehybrid", "smollm3", "arcee", "mistral3",
})
ALIBI_ARCHS = frozenset({"bloom", "mpt", "jais", "refact"})


@dataclass(frozen=True)
class SlidingRule:
    """One family's sliding-window layers in llama.cpp.

    Attributes:
        pattern: every ``pattern``-th layer is full attention (overridable by ``attention.sliding_window_pattern``).
        window: the window when the file gives none (None: the family needs the key).
        local_base: the local layers' base when ``rope.freq_base_swa`` is absent (None: the global base).
        local_scaling: whether the local layers take the global ``rope.scaling``.
        rope_only_sliding: RoPE applied in sliding layers only (Cohere2).
        needs_window: sliding only when the file gives a window above 0 (else every layer is full).
    """

    pattern: int
    window: int | None = None
    local_base: float | None = None
    local_scaling: bool = True
    rope_only_sliding: bool = False
    needs_window: bool = True


SLIDING_RULES = {
    "gemma2": SlidingRule(2, window=4096, needs_window=False),
    "gemma3": SlidingRule(6, local_base=10_000.0, local_scaling=False),
    "cohere2": SlidingRule(4, rope_only_sliding=True),
    "gpt-oss": SlidingRule(2),
    "olmo2": SlidingRule(4),
}
NO_ROPE_STEP = {"smollm3": 4, "llama4": 4}  # layer il rotates unless (il + 1) % step == 0
LLAMA4_CHUNK = 8192

__all__ = ["ALIBI_ARCHS", "LLAMA4_CHUNK", "MROPE_ARCHS", "NEOX_ARCHS", "NORM_ARCHS", "NO_ROPE_STEP", "PERMUTED_ARCHS",
           "ROPE_ARCHS", "SLIDING_RULES", "SlidingRule", "gguf_kind", "sliding_layers"]


def sliding_layers(count: int, pattern: int | list) -> list[bool]:
    """``llama_hparams::set_swa_pattern``: layer il slides when ``il % N < N - 1``; a list gives each layer's flag."""
    if isinstance(pattern, list):
        return [bool(flag) for flag in pattern]
    return [pattern == 0 or il % pattern < pattern - 1 for il in range(count)]


def gguf_kind(arch: str | None, tensor_names, path: str) -> ModelKind:
    """What a GGUF model uses for position: its tensors and llama.cpp's handling of its architecture."""
    if not isinstance(arch, str):
        raise FileError(path, "general.architecture is missing from the GGUF metadata")
    if "position_embd.weight" in tensor_names:
        return ModelKind("learned", "GGUF tensor 'position_embd.weight'", arch, {}, path)
    if arch in ALIBI_ARCHS:
        return ModelKind("alibi", f"GGUF general.architecture {arch!r}: llama.cpp applies ALiBi", arch, {}, path)
    if arch in ROPE_ARCHS:
        style = ("NORM, adjacent pairs" if arch in NORM_ARCHS else
                 "MROPE, sections of half-split pairs" if arch in MROPE_ARCHS else "NEOX, half-split pairs")
        return ModelKind("rope", f"GGUF general.architecture {arch!r}: llama.cpp rotates it ({style})", arch, {}, path)
    if arch in ("t5", "t5encoder"):
        return ModelKind("relative_bias", f"GGUF general.architecture {arch!r}", arch, {}, path)
    raise FileError(path, f"GGUF architecture {arch!r}: posemb does not know how llama.cpp positions it")
