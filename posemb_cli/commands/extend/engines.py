"""The recommended candidate in each inference engine: exact, or what differs.

- ``transformers``: the config.json edit (``commands.extend.config_edit``).
- ``vllm``: ``--hf-overrides``. vLLM sets each top-level key of the dict on the loaded config (a nested config,
  Gemma 3's ``text_config``, is merged key by key), so no key can be deleted: a published ``rope_scaling`` is
  overridden by the candidate's, a removed one set to null; merged into a JSON file instead, the published block's
  other keys would stay (``stale_keys``, which the candidate's rope type ignores and transformers warns about).
  ``rope_parameters`` is given whole as well (what vLLM reads since it follows transformers 5), with ``rope_theta``
  and ``max_position_embeddings`` raised to L where vLLM derives a shorter maximum length from the config (it
  multiplies it by the factor for linear and dynamic only, uses original x factor for yarn). vLLM's dynamic NTK is
  static, at max_position_embeddings x factor; DeepSeek V2/V3 turn any non-default rope type into DeepSeek's yarn.
- ``sglang``: ``--json-model-override-args``, applied the same way (``PretrainedConfig.update``), and
  ``--context-length``; its dynamic NTK and DeepSeek rule are vLLM's.
- ``llama_cpp``: the flags of ``commands.extend.llama_cpp``, with llama.cpp's θ′ computed as its CPU kernel does
  (ggml ``ggml_rope_cache_init``/``rope_yarn``: θ_i = p · powf(base, -2/n_dims)^i multiplied up in float32, divided
  by a file's frequency factors, the YaRN ramp between ``ggml_rope_yarn_corr_dims``' floor and ceil, magnitude
  1 + 0.1 ln(1/freq_scale) when ext_factor is 1, as llama_context sets it for yarn) and compared pair by pair with
  transformers'.
- ``ollama``: a Modelfile sets ``num_ctx`` only (its ``rope_frequency_base`` and ``rope_frequency_scale`` options
  were removed in 2024, ollama commit d5eec16d2: the RoPE comes from the GGUF's metadata).

No torch here.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.commands.extend.config_edit import TRANSFORMERS_VERSIONS, edit_config, is_per_layer_type, text_prefix

if TYPE_CHECKING:
    from posemb_cli.commands.extend.report import Candidate
    from posemb_cli.run.models.scaling_candidates import SetCandidateSpec
    from posemb_cli.run.models.trained_rope import TrainedSet
    from posemb_cli.sources.model.reading import ModelReading

EXACT_RTOL = 1e-5  # float32 rounding: what every engine computes in
_DEEPSEEK = ("deepseek_v2", "deepseek_v3")
_DERIVED_BY_FACTOR = ("linear", "dynamic")  # vLLM and SGLang multiply max_position_embeddings by the factor
_LENGTH_FREE = ("default", "linear", "llama3")  # frequencies the engines compute without max_position_embeddings
_ENV = {"vllm": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "sglang": "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"}
_GPT_OSS = ("gpt_oss",)  # vLLM's OAIAttention builds yarn whatever the config says

__all__ = ["EXACT_RTOL", "describe", "engines_for", "for_reading", "llama_cpp_theta", "merged",
           "vllm_dynamic_inv_freq"]


def merged(config: dict, overrides: dict) -> dict:
    """``overrides`` merged recursively into ``config`` (a copy): dicts key by key, anything else replaced."""
    out = dict(config)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def _blocks(rope_parameters: dict) -> list[dict]:
    values = rope_parameters.values() if is_per_layer_type(rope_parameters) else [rope_parameters]
    return [value for value in values if value is not None]


def _rope_types(rope_parameters: dict) -> set[str]:
    return {block["rope_type"] for block in _blocks(rope_parameters)}


def _transformers(config: dict | None, candidate: Candidate, target: int) -> dict:
    if config is None:
        return {"exact": False, "ops": None, "notes": [], "versions": TRANSFORMERS_VERSIONS,
                "differs": "no config.json was read (a GGUF file): nothing to edit; the model's own config.json "
                           "takes this edit (posemb extend on it writes it)"}
    edit = edit_config(config, candidate.rope_parameters, target)
    return {"exact": True, **edit.to_dict(), "differs": None}


def _text_keys(edited_text: dict, published_text: dict, rope_parameters: dict) -> dict:
    """The text model's RoPE keys as the edit leaves them, with ``rope_parameters`` whole."""
    out: dict = {}
    for key in ("rope_scaling", "rope_local_base_freq", "original_max_position_embeddings", "rope_theta",
                "partial_rotary_factor"):
        if key in edited_text:
            out[key] = edited_text[key]
        elif key in published_text:
            out[key] = None  # a merge cannot delete: null it
    first = _blocks(rope_parameters)[0] if _blocks(rope_parameters) else {}
    if "rope_theta" not in out and "rope_theta" in first and not is_per_layer_type(rope_parameters):
        out["rope_theta"] = first["rope_theta"]
    out["rope_parameters"] = rope_parameters
    if "max_position_embeddings" in edited_text:
        out["max_position_embeddings"] = edited_text["max_position_embeddings"]
    return out


def _scaling_blocks(text: dict) -> list[dict]:
    """The RoPE blocks an engine builds a rotary table for, as it reads the config: ``rope_scaling`` (or a flat
    ``rope_parameters``), one per layer type where the file keys them so; ``[{}]`` for the default RoPE."""
    per_type = text.get("rope_parameters")
    if isinstance(per_type, dict) and per_type and is_per_layer_type(per_type):
        return [value for value in per_type.values() if value is not None] or [{}]
    scaling = text.get("rope_scaling") or text.get("rope_parameters")
    return [scaling] if isinstance(scaling, dict) else [{}]


def _kind(block: dict) -> str:
    return block.get("rope_type", block.get("type", "default"))


def _table_length(block: dict, context: int) -> int:
    """Positions of the cos/sin table vLLM (and SGLang, which copies it) builds for one block: max_position_embeddings
    (default, llama3, longrope), times the factor (linear, dynamic), the original length times the factor (yarn)."""
    kind, factor = _kind(block), float(block.get("factor") or 1.0)
    if kind in ("yarn", "deepseek_yarn"):
        return int(float(block.get("original_max_position_embeddings") or context) * factor)
    if kind in _DERIVED_BY_FACTOR:
        return int(context * factor)
    return int(context)


def _checked_length(block: dict, context: int, model_type: str | None, engine: str) -> int:
    """The longest --max-model-len / --context-length the engine accepts from the config without an override.

    vLLM (``_get_and_verify_max_len``): the table's length, except that Gemma 3's check skips the factor. SGLang
    (``get_context_length``): max_position_embeddings times the factor, except for a block that states its original
    length (yarn, longrope) or is llama3, where it is max_position_embeddings alone.
    """
    kind = _kind(block)
    if engine == "sglang":
        if "original_max_position_embeddings" in block or kind == "llama3":
            return int(context)
        return int(context * float(block.get("factor") or 1.0))
    if model_type and "gemma3" in model_type and kind in _DERIVED_BY_FACTOR:
        return int(context)
    return _table_length(block, context)


def served_length(text: dict, model_type: str | None, engine: str = "vllm") -> tuple[int, int] | None:
    """(the shortest table, the longest length the check accepts) that vLLM or SGLang derives from ``text`` (the
    text model's config object), or None where it states no max_position_embeddings."""
    context = text.get("max_position_embeddings")
    if context is None:
        return None
    blocks = _scaling_blocks(text)
    return (min(_table_length(block, int(context)) for block in blocks),
            min(_checked_length(block, int(context), model_type, engine) for block in blocks))


def _pin_longrope(keys: dict, published_text: dict, target: int) -> int | None:
    """L for a LongRoPE block in vLLM, its attention factor pinned: vLLM's ``Phi3LongRoPEScaledRotaryEmbedding``
    derives its mscale from max_position_embeddings / original unless the block gives ``short_mscale`` and
    ``long_mscale``, so both are set to transformers' attention factor and the length can move. None for any other
    block."""
    scaling = keys.get("rope_scaling")
    if not isinstance(scaling, dict) or _kind(scaling) not in ("longrope", "su"):
        return None
    original = scaling.get("original_max_position_embeddings") or published_text.get("original_max_position_embeddings")
    context = published_text.get("max_position_embeddings")
    if not original or not context:
        return None
    factor = float(scaling.get("factor") or context / original)
    attention = scaling.get("attention_factor") or (
        math.sqrt(1 + math.log(factor) / math.log(original)) if factor > 1 else 1.0)
    pinned = {"short_mscale": attention, "long_mscale": attention}
    keys["rope_scaling"] = {**scaling, **pinned}
    block = keys.get("rope_parameters")
    if isinstance(block, dict) and _kind(block) in ("longrope", "su"):  # what vLLM reads with transformers 5
        keys["rope_parameters"] = {**block, **pinned}
    return target


def _raised_context(text: dict, model_type: str | None, target: int) -> int | None:
    """The smallest max_position_embeddings at which the table and the check reach L, where the engine's
    frequencies do not read it (default, linear, llama3); None where a block's would change: yarn reads its
    original length, LongRoPE its ratio, and dynamic NTK the length itself in vLLM since April 2026
    (docs/engines.md)."""
    needed = int(text.get("max_position_embeddings") or 0)
    for block in _scaling_blocks(text):
        kind = _kind(block)
        if kind not in _LENGTH_FREE:
            return None
        factor = float(block.get("factor") or 1.0) if kind == "linear" else 1.0
        skips = bool(model_type) and "gemma3" in str(model_type) and kind == "linear"
        needed = max(needed, target if skips else math.ceil(target / factor))
    return needed


def vllm_dynamic_inv_freq(base: float, rotary_dim: int, factor: float) -> np.ndarray:
    """vLLM's (and SGLang's) dynamic NTK frequencies: static, at max_position_embeddings x factor, where the base is
    raised by (f^2 - f + 1)^(d / (d - 2))."""
    raised = base * (factor * factor - factor + 1) ** (rotary_dim / (rotary_dim - 2))
    return 1.0 / raised ** (np.arange(0, rotary_dim, 2, dtype=np.float64) / rotary_dim)


def _server_differs(candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]], model_type: str | None,
                    target: int) -> tuple[list[str], float | None]:
    """(what differs in vLLM or SGLang, the largest relative θ′ difference where it is a number)."""
    differs: list[str] = []
    worst = None
    types = _rope_types(candidate.rope_parameters)
    if model_type in _DEEPSEEK and types - {"default", "yarn"}:
        differs.append(f"{model_type} turns every non-default rope type into DeepSeek's yarn: the "
                       f"{'/'.join(sorted(types - {'default', 'yarn'}))} block is not honoured")
    for one, spec in specs:
        if spec.parameters.get("rope_type") != "dynamic":
            continue
        served = vllm_dynamic_inv_freq(one.rope.base, one.rope.rotary_dim, float(spec.parameters["factor"]))
        worst = max(worst or 0.0, float(np.max(np.abs(served - spec.inv_freq) / spec.inv_freq)))
        differs.append(f"dynamic NTK is static there: the frequencies at max_position_embeddings x factor = "
                       f"{one.context * float(spec.parameters['factor']):,.0f} positions, not transformers' at "
                       f"{target:,}; largest relative θ′ difference {worst:.3g}")
    return differs, worst


def _no_settings(engine: str, differs: list[str]) -> dict:
    """An entry with no settings to run: the engine cannot run the candidate as posemb computes it."""
    out: dict = {"args": None, "env": {}, "stale_keys": []}
    out["hf_overrides" if engine == "vllm" else "json_model_override_args"] = None
    return {"exact": False, **out, "differs": "; ".join(differs)}


def _server(config: dict | None, candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]],
            model_type: str | None, target: int, engine: str) -> dict:
    published = config or {}  # a GGUF file: the keys are written as for a config.json that states none
    prefix = text_prefix(published)
    published_text = published["text_config"] if prefix else published
    edited = edit_config(published, candidate.rope_parameters, target).config
    edited_text = edited["text_config"] if prefix else edited
    keys = _text_keys(edited_text, published_text, candidate.rope_parameters)
    scaling, before = keys.get("rope_scaling"), published_text.get("rope_scaling")
    if isinstance(scaling, dict) and isinstance(before, dict) and "type" in before and "type" not in scaling:
        # left by a merge, a legacy "type" would win in transformers 4 (and clash in vLLM): restate it
        keys["rope_scaling"] = {**scaling, "type": scaling["rope_type"]}
    # a file silent on max_position_embeddings gets its config class's default, as the engines load it
    silent = {"max_position_embeddings": specs[0][0].context} if specs else {}  # (kept RoPE: the file states it)
    served = served_length({**silent, **published_text, **keys}, model_type, engine)
    if served is not None and min(served) < target:
        raised = _raised_context({**silent, **published_text, **keys}, model_type, target)
        if raised is None and engine == "vllm":
            raised = _pin_longrope(keys, {**silent, **published_text}, target)
        if raised is not None:  # the frequencies do not read it: the table and the check move to L with it
            keys["max_position_embeddings"] = raised
            served = served_length({**silent, **published_text, **keys}, model_type, engine)
    differs, worst = _server_differs(candidate, specs, model_type, target)
    if engine == "vllm" and model_type in _GPT_OSS and _rope_types(candidate.rope_parameters) != {"yarn"}:
        return _no_settings(engine, [
            f"vLLM's gpt_oss.py (OAIAttention) builds yarn whatever the config says, reading factor, "
            f"original_max_position_embeddings, beta_fast and beta_slow: a "
            f"{'/'.join(sorted(_rope_types(candidate.rope_parameters)))} block fails at load (KeyError)"])
    if engine == "sglang" and prefix:
        return _no_settings(engine, [
            "SGLang applies --json-model-override-args with a flat config.update on the top-level config: it never "
            "reaches text_config (and a nested override replaces it whole), so its length check and its RoPE keep "
            "the published values; serve the directory --write-config writes instead"])
    if served is not None and served[0] < target:
        reads = "/".join(sorted(_rope_types(candidate.rope_parameters) - set(_LENGTH_FREE)))
        return _no_settings(engine, [
            f"{engine} builds a cos/sin table of {served[0]:,} positions for these settings (max_position_embeddings, "
            f"times the factor for linear and dynamic NTK, the original length times the factor for yarn), and "
            f"positions past it read NaN; raising max_position_embeddings would change the {reads} frequencies "
            f"(or their attention factor), so it cannot serve {target:,}"])
    overrides = {"text_config": keys} if prefix else keys
    stale = sorted(set(published_text.get("rope_scaling") or {}) - set(keys.get("rope_scaling") or {}))
    if engine == "vllm":
        out: dict = {"args": ["--max-model-len", str(target), "--hf-overrides", json.dumps(overrides)],
                     "hf_overrides": overrides}
        if prefix and is_per_layer_type(candidate.rope_parameters):
            differs.append("vLLM merges text_config key by key into the loaded config: with transformers 5 there, "
                           "rope_scaling is an alias of the per-layer-type rope_parameters, so its keys land beside "
                           "the layer types (checked here as a merge into config.json only)")
    else:
        out = {"args": ["--context-length", str(target), "--json-model-override-args", json.dumps(keys)],
               "json_model_override_args": keys}
    # an environment variable only where the table already reaches L and the check alone falls short (Gemma 3's
    # check skips the factor in vLLM): lifting a check over a short table would read NaN (docs/engines.md)
    out["env"] = {}
    if served is not None and served[1] < target:
        out["env"] = {_ENV[engine]: "1"}
        out["env_note"] = (f"the table holds {served[0]:,} positions, but {engine}'s length check derives "
                           f"{served[1]:,} from the config; the variable lifts the check alone")
    out["stale_keys"] = [prefix + "rope_scaling." + key for key in stale]
    if worst is not None:
        out["theta_max_relative_difference"] = worst
    return {"exact": not differs, **out, "differs": "; ".join(differs) or None}


def _parse(flags: list[str]) -> dict[str, str]:
    return {flags[i]: flags[i + 1] for i in range(0, len(flags) - 1) if flags[i].startswith("-")}


def _corr_dims(n_dims: int, n_ctx_orig: int, base: float, beta_fast: float, beta_slow: float) -> tuple[float, float]:
    """ggml_rope_yarn_corr_dims, in float32 as ggml computes it."""
    f32 = np.float32

    def dim(n_rot: float) -> np.float32:
        return f32(f32(n_dims) * f32(math.log(f32(n_ctx_orig) / (f32(n_rot) * f32(2) * f32(math.pi))))
                   / (f32(2) * f32(math.log(f32(base)))))

    return max(0.0, math.floor(dim(beta_fast))), min(float(n_dims - 1), math.ceil(dim(beta_slow)))


def llama_cpp_theta(n_dims: int, base: float, freq_scale: float, *, ext_factor: float = 0.0, n_ctx_orig: int = 0,
                    beta_fast: float = 32.0, beta_slow: float = 1.0, freq_factors=None,
                    attn_factor: float = 1.0) -> tuple[np.ndarray, float]:
    """llama.cpp's θ′ per pair at position 1 and its magnitude scale, emulating ``ggml_rope_cache_init`` in float32.

    Args:
        n_dims: the rotary dimension. base: ``freq_base``. freq_scale: 1 / the ``--rope-scale`` factor (1 for none).
        ext_factor: 1 for YaRN (llama_context's default for ``--rope-scaling yarn``), else 0.
        n_ctx_orig: ``--yarn-orig-ctx``. beta_fast, beta_slow: the YaRN ramp's ends.
        freq_factors: a file's per-pair divisors (``rope_freqs.weight``, LongRoPE's factors), or None.
        attn_factor: the net attention factor before YaRN's own (llama.cpp cancels its own and re-applies
            get_mscale(factor), so the net for yarn is 0.1 ln s + 1).
    """
    f32 = np.float32
    theta_scale = f32(f32(base) ** f32(f32(-2.0) / f32(n_dims)))
    low, high = _corr_dims(n_dims, n_ctx_orig, base, beta_fast, beta_slow) if ext_factor else (0.0, 0.0)
    theta = f32(1.0)
    out = np.empty(n_dims // 2, dtype=np.float32)
    for pair in range(n_dims // 2):
        factor = f32(1.0) if freq_factors is None else f32(freq_factors[pair])
        extrap = f32(theta / factor)
        interp = f32(f32(freq_scale) * extrap)
        value = interp
        if ext_factor:
            y = f32((pair - f32(low)) / max(f32(0.001), f32(high - low)))
            mix = f32(f32(1) - min(f32(1), max(f32(0), y))) * f32(ext_factor)
            value = f32(interp * (f32(1) - mix) + extrap * mix)
        out[pair] = value
        theta = f32(theta * theta_scale)
    mscale = f32(attn_factor)
    if ext_factor:
        mscale = f32(mscale * (f32(1) + f32(0.1) * f32(math.log(f32(1) / f32(freq_scale)))))
    return out.astype(np.float64), float(mscale)


def _llama_cpp_side(one: TrainedSet, spec: SetCandidateSpec, flags: list[str]) -> tuple[np.ndarray, float]:
    """llama.cpp's θ′ and magnitude for one set under ``flags`` (on a GGUF converted from the published config)."""
    given = _parse(flags)
    rope = one.rope
    base = float(given.get("--rope-freq-base", rope.base))
    kind = given.get("--rope-scaling")
    scale = float(given.get("--rope-scale", 1.0))
    if kind is None and rope.scaling.kind in ("llama3", "longrope"):  # the GGUF's own divisors, stored as float32
        unscaled = 1.0 / rope.base ** (np.arange(0, rope.rotary_dim, 2, dtype=np.float64) / rope.rotary_dim)
        factors = (unscaled / spec.inv_freq).astype(np.float32)
        return llama_cpp_theta(rope.rotary_dim, base, 1.0, freq_factors=factors,
                               attn_factor=spec.attention_factor)[0], float(np.float32(spec.attention_factor))
    if kind == "yarn":
        return llama_cpp_theta(rope.rotary_dim, base, 1.0 / scale, ext_factor=1.0,
                               n_ctx_orig=int(given["--yarn-orig-ctx"]),
                               beta_fast=float(given.get("--yarn-beta-fast", 32.0)),
                               beta_slow=float(given.get("--yarn-beta-slow", 1.0)))
    return llama_cpp_theta(rope.rotary_dim, base, 1.0 / scale if kind == "linear" else 1.0)


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


def _context_line(name: str, entry: dict) -> str | None:
    need = entry.get("context_length")
    if not need or not need.get("command"):
        return None
    stated = "not stated" if need["file"] is None else f"{need['file']:,}"
    who = "llama-server caps a slot at it" if name == "llama_cpp" else "Ollama caps num_ctx at it"
    return (f"context_length: {' '.join(need['command'])} (the GGUF's {need['key']} is {stated}, short of "
            f"{need['needed']:,}; {who}; gguf-set-metadata edits the file in place)")


_SLOTS = ("-c is the KV cache of all parallel sequences: llama-server with -np N slots and no --kv-unified gives "
          "each slot c/N (llama_context::n_ctx_seq), so serve N slots of L with -c N*L")


def _llama_cpp(candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]], gguf: dict, target: int
               ) -> dict:
    flags = candidate.llama_cpp
    if flags is None:
        return {"exact": False, "args": None, "differs": candidate.llama_cpp_note}
    worst_theta = worst_attention = 0.0
    for one, spec in specs:
        theta, mscale = _llama_cpp_side(one, spec, flags)
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
            or the one ``convert_hf_to_gguf.py`` writes from the edited config (its max_position_embeddings).
    """
    if gguf is None:
        edited = edit_config(config, candidate.rope_parameters, target).config if config else {}
        text = edited.get("text_config", edited) if config and text_prefix(config) else edited
        gguf = {"architecture": _GGUF_ARCH.get(str(model_type)), "path": None,
                "context_length": text.get("max_position_embeddings") or (specs[0][0].context if specs else None)}
    return {"transformers": _transformers(config, candidate, target),
            "vllm": _server(config, candidate, specs, model_type, target, "vllm"),
            "sglang": _server(config, candidate, specs, model_type, target, "sglang"),
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


def _op_text(op: dict) -> str:
    if op["op"] == "remove":
        return f"remove {op['key']}"
    return f"set {op['key']} = {json.dumps(op['value'])}"


def describe(engines: dict) -> list[str]:
    """The engines as terminal lines: each engine, exact or not, then what to run or edit and what differs."""
    out = []
    for name, entry in engines.items():
        status = "exact" if entry["exact"] else "not exact"
        if name == "transformers" and entry.get("ops") is not None:
            what = "; ".join(_op_text(op) for op in entry["ops"]) or "the published config.json as it is"
            out.append(f"transformers ({status}): config.json edit: {what}")
            out += [f"  note: {note}" for note in entry.get("notes", [])]
        elif entry.get("args"):
            env = " ".join(f"{key}={value}" for key, value in entry.get("env", {}).items())
            words = " ".join(word if " " not in word and '"' not in word else f"'{word}'" for word in entry["args"])
            out.append(f"{name} ({status}): {(env + ' ') if env else ''}{words}")
        elif entry.get("modelfile"):
            out.append(f"{name} ({status}): Modelfile: {'; '.join(entry['modelfile'])}")
        else:
            out.append(f"{name} ({status})")
        if entry.get("args") or entry.get("modelfile"):
            line = _context_line(name, entry)
            out += [f"  {line}"] if line else []
        if entry.get("slots_note"):
            out.append(f"  slots: {entry['slots_note']}")
        if entry.get("env_note"):
            out.append(f"  env: {entry['env_note']}")
        if entry.get("differs"):
            out.append(f"  differs: {entry['differs']}")
    return out
