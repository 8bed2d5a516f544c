"""vLLM's and SGLang's entries: the overrides, each engine's cos/sin table and length check, and what differs.

vLLM takes ``--hf-overrides`` and sets each top-level key of the dict on the loaded config (a nested config,
Gemma 3's ``text_config``, is merged key by key), so no key can be deleted: a published ``rope_scaling`` is
overridden by the candidate's, a removed one set to null; merged into a JSON file instead, the published block's
other keys would stay (``stale_keys``, which the candidate's rope type ignores and transformers warns about).
``rope_parameters`` is given whole as well (what vLLM reads since it follows transformers 5). SGLang takes
``--json-model-override-args`` with a flat ``config.update`` and ``--context-length``. Each engine builds a cos/sin
table whose length and a length check that this module models (``served_length``; docs/engines.md has each rule
with its source): ``max_position_embeddings`` is raised where no frequency reads it, and an entry whose table cannot
reach L without changing the frequencies gets no command. No torch here.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.commands.extend.config_edit import (
    LENGTH_FREE,
    edit_config,
    is_per_layer_type,
    rope_kind,
    table_length,
    text_prefix,
)

if TYPE_CHECKING:
    from posemb_cli.commands.extend.report import Candidate
    from posemb_cli.run.models.scaling_candidates import SetCandidateSpec
    from posemb_cli.run.models.trained_rope import TrainedSet

_DEEPSEEK = ("deepseek_v2", "deepseek_v3")
_DERIVED_BY_FACTOR = ("linear", "dynamic")  # vLLM and SGLang multiply max_position_embeddings by the factor
_ENV = {"vllm": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "sglang": "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"}
_GPT_OSS = ("gpt_oss",)  # vLLM's OAIAttention builds yarn whatever the config says

__all__ = ["rope_types", "server_entry", "served_length", "vllm_dynamic_inv_freq"]


def _blocks(rope_parameters: dict) -> list[dict]:
    values = rope_parameters.values() if is_per_layer_type(rope_parameters) else [rope_parameters]
    return [value for value in values if value is not None]


def rope_types(rope_parameters: dict) -> set[str]:
    return {block["rope_type"] for block in _blocks(rope_parameters)}


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


def _checked_length(block: dict, context: int, model_type: str | None, engine: str) -> int:
    """The longest --max-model-len / --context-length the engine accepts from the config without an override.

    vLLM (``_get_and_verify_max_len``): the table's length, except that Gemma 3's check skips the factor. SGLang
    (``get_context_length``): max_position_embeddings times the factor, except for a block that states its original
    length (yarn, longrope) or is llama3, where it is max_position_embeddings alone.
    """
    kind = rope_kind(block)
    if engine == "sglang":
        if "original_max_position_embeddings" in block or kind == "llama3":
            return int(context)
        return int(context * float(block.get("factor") or 1.0))
    if model_type and "gemma3" in model_type and kind in _DERIVED_BY_FACTOR:
        return int(context)
    return table_length(block, context)


def served_length(text: dict, model_type: str | None, engine: str = "vllm") -> tuple[int, int] | None:
    """(the shortest table, the longest length the check accepts) that vLLM or SGLang derives from ``text`` (the
    text model's config object), or None where it states no max_position_embeddings."""
    context = text.get("max_position_embeddings")
    if context is None:
        return None
    blocks = _scaling_blocks(text)
    return (min(table_length(block, int(context)) for block in blocks),
            min(_checked_length(block, int(context), model_type, engine) for block in blocks))


def _pin_longrope(keys: dict, published_text: dict, target: int) -> int | None:
    """L for a LongRoPE block in vLLM, its attention factor pinned: vLLM's ``Phi3LongRoPEScaledRotaryEmbedding``
    derives its mscale from max_position_embeddings / original unless the block gives ``short_mscale`` and
    ``long_mscale``, so both are set to transformers' attention factor and the length can move. None for any other
    block."""
    scaling = keys.get("rope_scaling")
    if not isinstance(scaling, dict) or rope_kind(scaling) not in ("longrope", "su"):
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
    if isinstance(block, dict) and rope_kind(block) in ("longrope", "su"):  # what vLLM reads with transformers 5
        keys["rope_parameters"] = {**block, **pinned}
    return target


def _raised_context(text: dict, model_type: str | None, target: int) -> int | None:
    """The smallest max_position_embeddings at which the table and the check reach L, where the engine's
    frequencies do not read it (default, linear, llama3); None where a block's would change: yarn reads its
    original length, LongRoPE its ratio, and dynamic NTK the length itself in vLLM since April 2026
    (docs/engines.md)."""
    needed = int(text.get("max_position_embeddings") or 0)
    for block in _scaling_blocks(text):
        kind = rope_kind(block)
        if kind not in LENGTH_FREE:
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
    types = rope_types(candidate.rope_parameters)
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
                       f"{target:,}; largest relative θ′ difference {worst:.3g} (vLLM's rule before April 2026; its "
                       "later formula reads max_position_embeddings itself, and is not modelled here)")
    return differs, worst


def _no_settings(engine: str, differs: list[str]) -> dict:
    """An entry with no settings to run: the engine cannot run the candidate as posemb computes it."""
    out: dict = {"args": None, "env": {}, "stale_keys": []}
    out["hf_overrides" if engine == "vllm" else "json_model_override_args"] = None
    return {"exact": False, **out, "differs": "; ".join(differs)}


def server_entry(config: dict | None, candidate: Candidate, specs: list[tuple[TrainedSet, SetCandidateSpec]],
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
    loaded = {**({"max_position_embeddings": specs[0][0].context} if specs else {}), **published_text}
    served = served_length({**loaded, **keys}, model_type, engine)
    if served is not None and min(served) < target:
        raised = _raised_context({**loaded, **keys}, model_type, target)
        if raised is None and engine == "vllm":
            raised = _pin_longrope(keys, loaded, target)
        if raised is not None:  # the frequencies do not read it: the table and the check move to L with it
            keys["max_position_embeddings"] = raised
            served = served_length({**loaded, **keys}, model_type, engine)
    differs, worst = _server_differs(candidate, specs, model_type, target)
    if engine == "vllm" and model_type in _GPT_OSS and rope_types(candidate.rope_parameters) != {"yarn"}:
        return _no_settings(engine, [
            f"vLLM's gpt_oss.py (OAIAttention) builds yarn whatever the config says, reading factor, "
            f"original_max_position_embeddings, beta_fast and beta_slow: a "
            f"{'/'.join(sorted(rope_types(candidate.rope_parameters)))} block fails at load (KeyError)"])
    if engine == "sglang" and prefix:
        return _no_settings(engine, [
            "SGLang applies --json-model-override-args with a flat config.update on the top-level config: it never "
            "reaches text_config (and a nested override replaces it whole), so its length check and its RoPE keep "
            "the published values; serve the directory --write-config writes instead"])
    if served is not None and served[0] < target:
        reads = "/".join(sorted(rope_types(candidate.rope_parameters) - set(LENGTH_FREE)))
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
