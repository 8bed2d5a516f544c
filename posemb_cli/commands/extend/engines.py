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


def _derived_length(text: dict) -> int | None:
    """The longest context vLLM and SGLang accept from the config without an override flag."""
    context = text.get("max_position_embeddings")
    scaling = text.get("rope_parameters") if is_per_layer_type(text.get("rope_parameters") or {}) else (
        text.get("rope_scaling") or text.get("rope_parameters"))
    if context is None:
        return None
    if not isinstance(scaling, dict) or is_per_layer_type(scaling):
        return int(context)
    rope_type = scaling.get("rope_type", scaling.get("type"))
    if rope_type == "yarn" and scaling.get("original_max_position_embeddings"):
        return int(scaling["original_max_position_embeddings"] * scaling["factor"])
    if rope_type in _DERIVED_BY_FACTOR:
        return int(context * scaling["factor"])
    return int(context)


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
    if not _rope_types(candidate.rope_parameters) & {"dynamic", "yarn", "longrope"}:
        # max_position_embeddings is not read by these frequencies: raise it to L where the engine derives less
        probe = {**published_text, **keys}
        derived = _derived_length(probe)
        if derived is None or derived < target:
            keys["max_position_embeddings"] = max(target, int(probe.get("max_position_embeddings") or 0))
    derived = _derived_length({**published_text, **keys})
    overrides = {"text_config": keys} if prefix else keys
    stale = sorted(set(published_text.get("rope_scaling") or {}) - set(keys.get("rope_scaling") or {}))
    differs, worst = _server_differs(candidate, specs, model_type, target)
    if engine == "vllm":
        env = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
        out: dict = {"args": ["--max-model-len", str(target), "--hf-overrides", json.dumps(overrides)],
                     "hf_overrides": overrides}
        if prefix and is_per_layer_type(candidate.rope_parameters):
            differs.append("vLLM merges text_config key by key into the loaded config: with transformers 5 there, "
                           "rope_scaling is an alias of the per-layer-type rope_parameters, so its keys land beside "
                           "the layer types (checked here as a merge into config.json only)")
    else:
        env = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"
        out = {"args": ["--context-length", str(target), "--json-model-override-args", json.dumps(keys)],
               "json_model_override_args": keys}
        if prefix:
            differs.append("SGLang applies the override with PretrainedConfig.update: versions that update the "
                           "text config take these keys as given; older ones set them on the top-level config, "
                           "where this model does not read them")
    # the config's own maximum stays below L only where it must (dynamic NTK reads max_position_embeddings)
    out["env"] = {env: "1"} if derived is not None and derived < target else {}
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


def _llama_cpp(candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]]) -> dict:
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
            "differs": differs}


def _ollama(candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]], target: int) -> dict:
    modelfile = [f"PARAMETER num_ctx {target}"]
    # the candidate keeps the file's block as trained (not Qwen2.5's yarn block, read as added for inference)
    as_published = candidate.llama_cpp is not None and all(
        spec.parameters == one.parameters and (one.rope.scaling.kind == "none") == (
            one.parameters["rope_type"] == "default") for one, spec in specs)
    if as_published:
        return {"exact": True, "modelfile": modelfile, "differs": None,
                "note": "the candidate keeps the published RoPE, which a GGUF converted from the published config "
                        "carries in its metadata"}
    return {"exact": False, "modelfile": modelfile,
            "differs": "a Modelfile has no RoPE parameter (rope_frequency_base and rope_frequency_scale were "
                       "removed in 2024): Ollama runs the GGUF's own RoPE metadata, so this candidate needs a GGUF "
                       "converted from the edited config.json (llama.cpp's convert_hf_to_gguf.py), where the "
                       "runner reads that metadata"}


def engines_for(candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]], target: int,
                config: dict | None, model_type: str | None = None) -> dict:
    """One entry per engine for ``candidate`` at the target ``target``, each exact or naming what differs.

    Args:
        candidate: the candidate (the recommended one). specs: its sets that extend, each with the candidate's
            spec there. target: L. config: the published config.json as loaded, or None (a GGUF was read).
        model_type: the model's ``model_type`` (vLLM's and SGLang's DeepSeek rule).
    """
    return {"transformers": _transformers(config, candidate, target),
            "vllm": _server(config, candidate, specs, model_type, target, "vllm"),
            "sglang": _server(config, candidate, specs, model_type, target, "sglang"),
            "llama_cpp": _llama_cpp(candidate, specs),
            "ollama": _ollama(candidate, specs, target)}


def for_reading(specs: dict[str, list[tuple[TrainedSet, SetCandidateSpec]]], target: int, reading: ModelReading):
    """``engines_for`` bound to one run of ``posemb extend``: a function of the recommended candidate.

    Args:
        specs: each candidate scaling's sets that extend, with its spec there. target: L.
        reading: the model as read; its config.json object (``top``) is edited, none for a GGUF file.
    """
    config = reading.top if reading.format != "gguf" and reading.top else None

    def engines(candidate: Candidate) -> dict:
        return engines_for(candidate, specs[candidate.scaling], target, config, reading.model_type)

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
        if entry.get("differs"):
            out.append(f"  differs: {entry['differs']}")
    return out
