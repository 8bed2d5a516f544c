"""What a family's runtime does to the residual stream before the query and key projections, and to their outputs.

Plain data: per Hugging Face ``model_type`` (transformers' modeling code) and per GGUF
architecture (llama.cpp's graphs), the input norm before attention and the norm on the
projected queries and keys where the checkpoint holds one. A norm is

- ``rms``: ``x / rms(x) * gain``: linear up to one scalar per token, so its gain folds into the weights;
- ``layer``: ``(x - mean(x)) / std(x) * gain + bias``: the centring is linear and folds too; the bias adds a
  constant to the queries and keys, which posemb leaves out and reports as present;
- ``none``: no norm before attention (OLMo 2 normalises after attention and on the projections instead).

``offset`` is what the runtime adds to the stored gain: transformers' Gemma modules store ``w`` and apply
``1 + w`` (``Gemma3RMSNorm``), Nemotron's ``LayerNorm1P`` likewise; llama.cpp's converters store the applied
gain, so a GGUF gain is used as stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from posemb_cli.errors import FileError

__all__ = ["AttentionInput", "attention_input"]


@dataclass(frozen=True)
class AttentionInput:
    """The norms around a family's query and key projections.

    Attributes:
        family: the model_type or GGUF architecture it was looked up by.
        norm: the input norm's kind (``rms``, ``layer``, ``none``). offset: added to every stored gain.
        qk_norm: the kind of the norm on projected queries and keys, where the checkpoint holds one.
    """

    family: str
    norm: str
    offset: float = 0.0
    qk_norm: str = "rms"

    def describe(self) -> str:
        gain = "1 + stored gain" if self.offset else "the stored gain"
        if self.norm == "none":
            return f"{self.family}: no norm before attention; q/k norm gains ({gain}) folded into the rows"
        centred = ", centred (LayerNorm)" if self.norm == "layer" else ""
        return (f"{self.family}: input norm ({gain}{centred}) folded into the columns, any q/k norm gains into "
                f"the rows")


_RMS = ("llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "granite", "granitemoe",
        "smollm3", "phi3", "glm4", "helium", "ministral")
_HF = {
    **{family: AttentionInput(family, "rms") for family in _RMS},
    **{family: AttentionInput(family, "rms", offset=1.0) for family in ("gemma", "gemma2", "gemma3", "gemma3_text")},
    **{family: AttentionInput(family, "none") for family in ("olmo2", "olmo3")},
    **{family: AttentionInput(family, "layer", qk_norm="layer") for family in ("phi", "stablelm", "starcoder2",
                                                                               "cohere", "gpt_neox")},
    "nemotron": AttentionInput("nemotron", "layer", offset=1.0),
}
_GGUF = {
    **{arch: AttentionInput(arch, "rms") for arch in ("llama", "smollm3", "granite", "granitemoe", "mistral3",
                                                      "qwen2", "qwen2moe", "qwen3", "qwen3moe", "phi3", "gemma",
                                                      "gemma2", "gemma3")},
    "olmo2": AttentionInput("olmo2", "none"),
    **{arch: AttentionInput(arch, "layer", qk_norm="layer") for arch in ("starcoder2", "stablelm", "command-r",
                                                                         "cohere2")},
}


def attention_input(family: str | None, file_format: str, path: str) -> AttentionInput:
    """The family's norms around q and k; refused (``FileError`` about ``path``) for a family not listed."""
    table = _GGUF if file_format == "gguf" else _HF
    found = table.get((family or "").lower())
    if found is None:
        kind = "GGUF architecture" if file_format == "gguf" else "model_type"
        raise FileError(path, f"{kind} {family!r}: posemb does not know how its runtime normalises the attention "
                              f"input, so its weights cannot be read as applied; known: {', '.join(table)}")
    return found
