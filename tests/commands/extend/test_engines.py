"""`posemb extend`'s engines (``commands.extend.engines``): for every published config and every candidate,

- vLLM's ``hf_overrides`` merged recursively into the config.json (and SGLang's override set key by key) loads in
  transformers as the candidate (its frequencies and attention factor per RoPE set, as posemb predicts them);
- llama.cpp's θ′ from the flags, written here again as a NumPy float32 oracle (``ggml_rope_cache_init``,
  ``rope_yarn``, ``ggml_rope_yarn_corr_dims``), equal the module's and differ from transformers' (its
  ``ROPE_INIT_FUNCTIONS`` on the edited config) by the figure reported;
- vLLM's static dynamic NTK is transformers' dynamic NTK at max_position_embeddings x factor;
- Ollama is exact only where the candidate keeps the published frequencies;
- ``posemb extend``'s recommendation carries ``engines`` beside its other keys.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.commands.extend.config_edit import edit_config
from posemb_cli.commands.extend.engine_lines import describe
from posemb_cli.commands.extend.engine_servers import vllm_dynamic_inv_freq
from posemb_cli.commands.extend.engines import engines_for, merged
from posemb_cli.commands.extend.llama_cpp_theta import llama_cpp_theta
from posemb_cli.run.models.scaling_candidates import candidate_spec
from posemb_cli.run.models.trained_rope import trained_sets
from posemb_cli.sources.naming.model_file import model_file, open_model

from tests.commands.extend.loaded_rope import assert_same, frequencies, load, predicted
from tests.commands.extend.test_config_edit import FILES, PUBLISHED, published, report_of

pytest.importorskip("transformers")
pytest.importorskip("torch")


def _cases(name: str):
    """(report, reading, [(candidate, specs)]) for a published file; the test skipped where extend refuses it."""
    report = report_of(name)
    if isinstance(report, str):
        pytest.skip("extend refuses this file")
    reading, _ = open_model(model_file(str(PUBLISHED / name)))
    trained = [one for one in trained_sets(reading, report.to) if one.needs_extension]
    return report, reading, [(candidate, [(one, candidate_spec(candidate.scaling, one, report.to, None))
                                          for one in trained]) for candidate in report.candidates]


def _oracle(n_dims: int, base: float, freq_scale: float, ext_factor: float, n_ctx_orig: int, beta_fast: float,
            beta_slow: float, divisors=None) -> tuple[np.ndarray, float]:
    """llama.cpp's θ′ at position 1 and magnitude, as ggml's CPU kernel computes them, in float32."""
    f32 = np.float32
    steps = np.full(n_dims // 2, f32(base) ** (f32(-2.0) / f32(n_dims)), dtype=np.float32)
    steps[0] = f32(1.0)
    theta = np.multiply.accumulate(steps, dtype=np.float32)  # theta *= theta_scale, pair after pair
    if divisors is not None:
        theta = (theta / np.asarray(divisors, dtype=np.float32)).astype(np.float32)
    interp = (f32(freq_scale) * theta).astype(np.float32)
    if not ext_factor:
        return interp.astype(np.float64), 1.0

    def corr(rotations: float) -> float:
        return n_dims * math.log(n_ctx_orig / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = max(0.0, math.floor(corr(beta_fast))), min(n_dims - 1.0, math.ceil(corr(beta_slow)))
    y = (np.arange(n_dims // 2, dtype=np.float32) - f32(low)) / f32(max(0.001, high - low))
    mix = (1 - np.clip(y, 0, 1)).astype(np.float32) * f32(ext_factor)
    theta = (interp * (1 - mix) + theta * mix).astype(np.float32)
    return theta.astype(np.float64), float(f32(1) + f32(0.1) * f32(math.log(1 / freq_scale)))


def _text(config: dict) -> dict:
    return config["text_config"] if "text_config" in config and "hidden_size" not in config else config


def _blocks(text: dict) -> list[dict]:
    """The blocks the engines build tables for: rope_scaling (or a flat rope_parameters), or one per layer type."""
    parameters = text.get("rope_parameters")
    if isinstance(parameters, dict) and parameters and "rope_type" not in parameters and all(
            value is None or isinstance(value, dict) for value in parameters.values()):
        return [value for value in parameters.values() if value is not None]
    scaling = text.get("rope_scaling") or parameters
    return [scaling] if isinstance(scaling, dict) else [{}]


def _table(block: dict, context: int) -> int:
    """vLLM's cos/sin cache length (rotary_embedding/*.py): max_position (default, llama3, longrope), x factor
    (linear, dynamic in its 2025 form), original x factor (yarn)."""
    kind = block.get("rope_type", block.get("type", "default"))
    if kind == "yarn":
        return int(block["original_max_position_embeddings"] * block["factor"])
    return int(context * (block["factor"] if kind in ("linear", "dynamic") else 1))


def _check(block: dict, context: int, model_type: str, engine: str) -> int:
    """The length each engine's check derives: vLLM's _get_and_verify_max_len (factor skipped for Gemma 3, and for
    su/longrope/llama3; yarn from its original length); SGLang's get_context_length (factor 1 where the block
    states an original length, or is llama3)."""
    kind = block.get("rope_type", block.get("type", "default"))
    if engine == "sglang":
        keep = "original_max_position_embeddings" in block or kind == "llama3"
        return int(context * (1 if keep else block.get("factor", 1)))
    if "gemma3" in model_type or kind in ("su", "longrope", "llama3"):
        return int(context)
    base = block["original_max_position_embeddings"] if kind == "yarn" else context
    return int(base * block.get("factor", 1))


def _served(config: dict, model_type: str, engine: str, context: int) -> tuple[int, int]:
    """(table, check) from a config, ``context`` its max_position_embeddings as transformers loads it."""
    text = _text(config)
    return (min(_table(block, context) for block in _blocks(text)),
            min(_check(block, context, model_type, engine) for block in _blocks(text)))


def _flags(args: list[str]) -> dict[str, str]:
    return {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("-")}


@pytest.mark.parametrize("name", FILES)
def test_vllm_and_sglang_overrides_load_as_the_candidate(name, tmp_path):
    """Each server entry with settings loads as the candidate and serves L from a table that holds L (an environment
    variable only where the check alone falls short); one without settings is one the engine cannot run."""
    report, reading, cases = _cases(name)
    config = published(name)
    names = [one.name for one in report.sets]
    model_type = reading.model_type or ""
    for candidate, specs in cases:
        engines = engines_for(candidate, specs, report.to, config, reading.model_type)
        what = f"{name} {candidate.scaling}"
        vllm, sglang = engines["vllm"], engines["sglang"]
        if vllm["args"] is None:
            assert not vllm["exact"], what
            non_yarn = {block.get("rope_type") for block in _blocks_of(candidate.rope_parameters)} != {"yarn"}
            assert (model_type == "gpt_oss" and non_yarn) or "cos/sin table" in vllm["differs"], what
            if "cos/sin table" in vllm["differs"]:  # short as published, and a block reads the length
                blocks = _blocks_of(candidate.rope_parameters)
                published_length = _text(config).get("max_position_embeddings") or load(
                    config, tmp_path / "published")[0].get_text_config().max_position_embeddings  # the class default
                assert min(_table(block, published_length) for block in blocks) < report.to, what
                assert any(block["rope_type"] not in ("default", "linear", "llama3") for block in blocks), what
        else:
            assert vllm["args"][:2] == ["--max-model-len", str(report.to)] and vllm["args"][2] == "--hf-overrides"
            loaded, _ = load(merged(config, vllm["hf_overrides"]), tmp_path / f"vllm-{candidate.scaling}")
            found = frequencies(loaded, names, report.to)
            pinned = (vllm["hf_overrides"].get("rope_scaling") or {}).get("long_mscale")
            if pinned is not None:  # vLLM's Phi3LongRoPE takes short_mscale/long_mscale as given, not from the lengths
                assert vllm["hf_overrides"]["rope_scaling"]["short_mscale"] == pinned, what
                found = {name: (inv_freq, pinned) for name, (inv_freq, _) in found.items()}
            assert_same(found, predicted(report, candidate.scaling), what + " vllm")
            context = loaded.get_text_config().max_position_embeddings
            table, check = _served(merged(config, vllm["hf_overrides"]), model_type, "vllm", context)
            assert table >= report.to, what
            assert bool(vllm["env"]) is (check < report.to), what
        if "text_config" in config:  # a flat update never reaches text_config: no command to print
            assert sglang["args"] is None and not sglang["exact"] and "text_config" in sglang["differs"], what
            continue
        if sglang["args"] is None:
            assert not sglang["exact"] and "cos/sin table" in sglang["differs"], what
            continue
        assert sglang["args"][:2] == ["--context-length", str(report.to)]
        updated = {**config, **sglang["json_model_override_args"]}  # PretrainedConfig.update: each key replaced
        loaded, _ = load(updated, tmp_path / f"sgl-{candidate.scaling}")
        assert_same(frequencies(loaded, names, report.to), predicted(report, candidate.scaling), what + " sgl")
        table, check = _served(updated, model_type, "sglang", loaded.get_text_config().max_position_embeddings)
        assert table >= report.to, what
        assert bool(sglang["env"]) is (check < report.to), what


def _blocks_of(rope_parameters: dict) -> list[dict]:
    if "rope_type" in rope_parameters:
        return [rope_parameters]
    return [value for value in rope_parameters.values() if value is not None]


@pytest.mark.parametrize("name", FILES)
def test_llama_cpp_theta_against_the_oracle_and_transformers(name, tmp_path):
    report, reading, cases = _cases(name)
    config = published(name)
    checked = 0
    for candidate, specs in cases:
        entry = engines_for(candidate, specs, report.to, config, reading.model_type)["llama_cpp"]
        if entry["args"] is None:
            assert entry["exact"] is False and entry["differs"] == candidate.llama_cpp_note
            continue
        given = _flags(entry["args"])
        loaded, _ = load(edit_config(config, candidate.rope_parameters, report.to).config,
                         tmp_path / candidate.scaling)
        hf = frequencies(loaded, [one.name for one in report.sets], report.to)
        worst = 0.0
        for one, spec in specs:
            rope = one.rope
            kind = given.get("--rope-scaling")
            scale = float(given.get("--rope-scale", 1.0))
            base = float(given.get("--rope-freq-base", rope.base))
            divisors = None
            if kind is None:  # a GGUF's own rope_freqs.weight / LongRoPE factors, float32
                unscaled = 1.0 / rope.base ** (np.arange(0, rope.rotary_dim, 2) / rope.rotary_dim)
                divisors = (unscaled / spec.inv_freq).astype(np.float32)
            oracle, mscale = _oracle(rope.rotary_dim, base, 1 / scale if kind in ("linear", "yarn") else 1.0,
                                     1.0 if kind == "yarn" else 0.0, int(given.get("--yarn-orig-ctx", 0)),
                                     float(given.get("--yarn-beta-fast", 32)), float(given.get("--yarn-beta-slow", 1)),
                                     divisors)
            if kind is None:
                mscale = float(np.float32(spec.attention_factor))  # the GGUF's rope.scaling.attn_factor
            module = llama_cpp_theta(rope.rotary_dim, base, 1 / scale if kind in ("linear", "yarn") else 1.0,
                                     ext_factor=1.0 if kind == "yarn" else 0.0,
                                     n_ctx_orig=int(given.get("--yarn-orig-ctx", 0)),
                                     beta_fast=float(given.get("--yarn-beta-fast", 32)),
                                     beta_slow=float(given.get("--yarn-beta-slow", 1)), freq_factors=divisors)
            np.testing.assert_allclose(module[0], oracle, rtol=1e-6, err_msg=f"{name} {candidate.scaling}")
            transformers_theta, transformers_attention = hf[one.rope.name]
            np.testing.assert_allclose(oracle, transformers_theta, rtol=1e-5)
            np.testing.assert_allclose(mscale, transformers_attention, rtol=1e-5)
            worst = max(worst, float(np.max(np.abs(oracle - spec.inv_freq) / spec.inv_freq)))
        assert entry["exact"] is True
        assert entry["theta_max_relative_difference"] == pytest.approx(worst, rel=0.05, abs=1e-7)
        checked += 1
    assert checked or name.startswith(("deepseek", "gpt-oss", "llama-3.1", "gemma-2", "llama-2", "qwen")), name


def test_vllm_dynamic_is_transformers_dynamic_at_context_times_factor():
    transformers = pytest.importorskip("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = transformers.LlamaConfig(hidden_size=256, num_attention_heads=2, head_dim=128,
                                      max_position_embeddings=8192,
                                      rope_scaling={"rope_type": "dynamic", "factor": 3.0}, rope_theta=5e5)
    inv_freq, _ = ROPE_INIT_FUNCTIONS["dynamic"](config, "cpu", seq_len=8192 * 3)
    np.testing.assert_allclose(vllm_dynamic_inv_freq(5e5, 128, 3.0), inv_freq.double().numpy(), rtol=1e-5)


def test_deepseek_rule_and_dynamic_differ_in_vllm():
    report, reading, cases = _cases("deepseek-v3.json")
    by = {candidate.scaling: engines_for(candidate, specs, report.to, published("deepseek-v3.json"),
                                         reading.model_type) for candidate, specs in cases}
    assert by["yarn"]["vllm"]["exact"] and by["ntk"]["vllm"]["exact"]
    assert not by["linear"]["vllm"]["exact"] and "DeepSeek's yarn" in by["linear"]["vllm"]["differs"]
    assert not by["dynamic"]["sglang"]["exact"] and by["dynamic"]["sglang"]["theta_max_relative_difference"] > 0.01


def test_ollama_only_runs_the_published_frequencies():
    report, reading, cases = _cases("llama-3.1-8b.json")
    for candidate, specs in cases:
        entry = engines_for(candidate, specs, report.to, None, reading.model_type)["ollama"]
        assert entry["modelfile"] == [f"PARAMETER num_ctx {report.to}"]
        assert entry["exact"] is (candidate.scaling == "none"), candidate.scaling


def test_without_a_config_json_transformers_is_not_editable():
    report, reading, cases = _cases("llama-3.1-8b.json")
    candidate, specs = cases[0]
    engines = engines_for(candidate, specs, report.to, None)
    assert engines["transformers"]["exact"] is False and engines["transformers"]["ops"] is None
    assert engines["vllm"]["hf_overrides"]["rope_scaling"] == {
        key: value for key, value in candidate.rope_parameters.items() if key != "rope_theta"}


def _tuned(name: str):
    """extend ranked for fine-tuning: Llama 3.1's own llama3 block, its factor raised, is recommended."""
    from posemb_cli.commands.extend.predict import run_extend

    return run_extend(str(PUBLISHED / name), to=report_of(name).to, fine_tune=True)


def test_recommendation_carries_engines():
    report = _tuned("llama-3.1-8b.json")
    recommendation = report.recommendation
    assert {"scaling", "factor", "rope_parameters", "max_position_embeddings", "max_position_embeddings_note",
            "llama_cpp", "llama_cpp_note", "needs_fine_tuning", "evidence", "why"} <= recommendation.keys()
    engines = recommendation["engines"]
    assert list(engines) == ["transformers", "vllm", "sglang", "llama_cpp", "ollama"]
    assert engines["transformers"]["ops"] == [{"op": "set", "key": "max_position_embeddings", "value": 524288},
                                              {"op": "set", "key": "rope_scaling.factor", "value": 64.0}]
    assert engines["llama_cpp"]["args"] == recommendation["llama_cpp"]


def test_describe_names_each_engine():
    lines = describe(_tuned("llama-3.1-8b.json").recommendation["engines"])
    assert lines[0] == ("transformers (exact): config.json edit: set max_position_embeddings = 524288; "
                        "set rope_scaling.factor = 64.0")
    assert lines[1].startswith("vllm (exact): --max-model-len 524288 --hf-overrides '{")
    assert any(line.startswith("llama_cpp (not exact)") for line in lines)
    assert any(line.startswith("ollama (not exact): Modelfile: PARAMETER num_ctx 524288") for line in lines)
