"""The recommended candidate in each inference engine: exact, or what differs.

- ``transformers``: the config.json edit (``commands.extend.config_edit``).
- ``vllm`` and ``sglang``: their overrides and length, each engine's table and check modelled
  (``commands.extend.engine_servers``).
- ``llama_cpp``: the flags of ``commands.extend.llama_cpp``, with llama.cpp's θ′ as its CPU kernel computes them
  (``commands.extend.llama_cpp_theta``) compared pair by pair with transformers', the slots ``-c`` is shared by, and
  the GGUF's ``context_length`` that llama-server caps a slot at.
- ``ollama``: a Modelfile sets ``num_ctx`` only (its ``rope_frequency_base`` and ``rope_frequency_scale`` options
  were removed in 2024, ollama commit d5eec16d2: the RoPE comes from the GGUF's metadata), capped at the GGUF's
  ``context_length``.

The entries in words: ``commands.extend.engine_lines``. The rules and their sources: docs/engines.md. No torch here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.commands.extend.config_edit import TRANSFORMERS_VERSIONS, edit_config, text_prefix
from posemb_cli.commands.extend.engine_servers import server_entry
from posemb_cli.commands.extend.llama_cpp_theta import llama_cpp_side

if TYPE_CHECKING:
    from posemb_cli.commands.extend.report import Candidate
    from posemb_cli.run.models.scaling_candidates import SetCandidateSpec
    from posemb_cli.run.models.trained_rope import TrainedSet
    from posemb_cli.sources.model.reading import ModelReading

EXACT_RTOL = 1e-5  # float32 rounding: what every engine computes in

__all__ = ["EXACT_RTOL", "engines_for", "for_reading", "merged"]


def merged(config: dict, overrides: dict) -> dict:
    """``overrides`` merged recursively into ``config`` (a copy): dicts key by key, anything else replaced."""
    out = dict(config)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def _transformers(config: dict | None, candidate: Candidate, target: int) -> dict:
    if config is None:
        return {"exact": False, "ops": None, "notes": [], "versions": TRANSFORMERS_VERSIONS,
                "differs": "no config.json was read (a GGUF file): nothing to edit; the model's own config.json "
                           "takes this edit (posemb extend on it writes it)"}
    edit = edit_config(config, candidate.rope_parameters, target)
    return {"exact": True, **edit.to_dict(), "differs": None}


# llama.cpp's architecture names for the model_types convert_hf_to_gguf.py maps (its ModelBase.register lines)
_GGUF_ARCH = {"llama": "llama", "mistral": "llama", "qwen2": "qwen2", "qwen3": "qwen3", "gemma2": "gemma2",
              "gemma3": "gemma3", "gemma3_text": "gemma3", "phi3": "phi3", "deepseek_v2": "deepseek2",
              "deepseek_v3": "deepseek2", "gpt_oss": "gpt-oss"}


def _context_length(gguf: dict, target: int) -> dict:
    """What the GGUF's ``{arch}.context_length`` must be for L, and how to set it in place where it is shorter."""
    arch, stated = gguf["architecture"], gguf["context_length"]
    key = f"{arch or 'ARCH'}.context_length"
    out: dict = {"key": key, "file": stated, "needed": target}
    if stated is not None and stated >= target:
        return {**out, "command": None}
    path = gguf.get("path") or "MODEL.gguf"
    return {**out, "command": ["gguf-set-metadata", "--force", path, key, str(target)]}


_SLOTS = ("-c is the KV cache of all parallel sequences: llama-server with -np N slots and no --kv-unified gives "
          "each slot c/N (llama_context::n_ctx_seq), so serve N slots of L with -c N*L")


def _llama_cpp(candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]], gguf: dict, target: int
               ) -> dict:
    flags = candidate.llama_cpp
    if flags is None:
        return {"exact": False, "args": None, "differs": candidate.llama_cpp_note}
    worst_theta = worst_attention = 0.0
    for one, spec in specs:
        theta, mscale = llama_cpp_side(one, spec, flags)
        worst_theta = max(worst_theta, float(np.max(np.abs(theta - spec.inv_freq) / spec.inv_freq)))
        worst_attention = max(worst_attention, abs(mscale - spec.attention_factor) / spec.attention_factor)
    exact = worst_theta <= EXACT_RTOL and worst_attention <= EXACT_RTOL
    differs = None if exact else (f"llama.cpp's θ′ differ from transformers' by up to {worst_theta:.3g} "
                                  f"(relative), its attention factor by {worst_attention:.3g}")
    return {"exact": exact, "args": list(flags), "note": candidate.llama_cpp_note,
            "theta_max_relative_difference": worst_theta, "attention_factor_relative_difference": worst_attention,
            "slots_note": _SLOTS, "context_length": _context_length(gguf, target), "differs": differs}


def _ollama(candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]], target: int, gguf: dict) -> dict:
    modelfile = [f"PARAMETER num_ctx {target}"]
    length = _context_length(gguf, target)  # Ollama caps num_ctx at it (llm/server.go, NewLlamaServer)
    # the candidate keeps the file's block as trained (not Qwen2.5's yarn block, read as added for inference)
    as_published = candidate.llama_cpp is not None and all(
        spec.parameters == one.parameters and (one.rope.scaling.kind == "none") == (
            one.parameters["rope_type"] == "default") for one, spec in specs)
    if as_published:
        note = ("the candidate keeps the published RoPE, which a GGUF converted from the published config carries "
                "in its metadata")
        if length["command"]:
            note += (f"; Ollama caps num_ctx at the GGUF's {length['key']}, so set it to {target:,} first (a GGUF "
                     "converted from the config --write-config writes has it)")
        return {"exact": True, "modelfile": modelfile, "context_length": length, "differs": None, "note": note}
    return {"exact": False, "modelfile": modelfile, "context_length": length,
            "differs": "a Modelfile has no RoPE parameter (rope_frequency_base and rope_frequency_scale were "
                       "removed in 2024): Ollama runs the GGUF's own RoPE metadata, so this candidate needs a GGUF "
                       "converted from the edited config.json (llama.cpp's convert_hf_to_gguf.py), where the "
                       "runner reads that metadata"}


def engines_for(candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]], target: int,
                config: dict | None, model_type: str | None = None, gguf: dict | None = None) -> dict:
    """One entry per engine for ``candidate`` at the target ``target``, each exact or naming what differs.

    Args:
        candidate: the candidate (the recommended one). specs: its sets that extend, each with the candidate's
            spec there. target: L. config: the published config.json as loaded, or None (a GGUF was read).
        model_type: the model's ``model_type`` (vLLM's and SGLang's DeepSeek rule).
        gguf: ``{"architecture", "context_length", "path"}`` of the GGUF llama.cpp and Ollama run: the file read,
            or the one ``convert_hf_to_gguf.py`` writes from the published config (its max_position_embeddings;
            one converted from the config --write-config writes has L where no frequency reads it).
    """
    if gguf is None:
        published = config or {}
        text = published["text_config"] if config and text_prefix(config) else published
        gguf = {"architecture": _GGUF_ARCH.get(str(model_type)), "path": None,
                "context_length": text.get("max_position_embeddings") or (specs[0][0].context if specs else None)}
    return {"transformers": _transformers(config, candidate, target),
            "vllm": server_entry(config, candidate, specs, model_type, target, "vllm"),
            "sglang": server_entry(config, candidate, specs, model_type, target, "sglang"),
            "llama_cpp": _llama_cpp(candidate, specs, gguf, target),
            "ollama": _ollama(candidate, specs, target, gguf)}


def for_reading(specs: dict[str, list[tuple[TrainedSet, SetCandidateSpec]]], target: int, reading: ModelReading):
    """``engines_for`` bound to one run of ``posemb extend``: a function of the recommended candidate.

    Args:
        specs: each candidate scaling's sets that extend, with its spec there. target: L.
        reading: the model as read; its config.json object (``top``) is edited, none for a GGUF file.
    """
    config = reading.top if reading.format != "gguf" and reading.top else None
    gguf = None if reading.format != "gguf" else {"architecture": reading.model_type, "path": reading.path,
                                                  "context_length": reading.context}

    def engines(candidate: Candidate) -> dict:
        return engines_for(candidate, specs[candidate.scaling], target, config, reading.model_type, gguf)

    return engines
