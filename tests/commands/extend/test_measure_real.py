"""The measurement's scalings for the real GGUF models (SmolLM2-135M, Gemma 3 270M), when present here.

A window past these models' trained lengths (8,192 and 32,768 tokens) takes minutes per candidate on a
CPU, so the measurement itself is left to ``benchmarks/extend_measure.py``. What is checked here, in
seconds: every candidate ``posemb extend`` predicts, with the exact ``rope_parameters`` it would run,
set on transformers' own config of the file (read by transformers' GGUF loader), builds a rotary
module (transformers' own class for the family) that holds, once run over the L positions as the
forward runs it, each RoPE set's predicted θ′ and attention factor: the frequencies the runtime checks
before it measures. Gemma 3's sliding set is held at its published frequencies in every candidate.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from tests.sources.gguf.test_real_gguf import GEMMA, SMOL, _file

transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")
torch = pytest.importorskip("torch")


def _rotary_class(config):
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    module = importlib.import_module(getattr(transformers, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES[config.model_type])
                                     .__module__)
    names = [name for name in dir(module) if name.endswith("RotaryEmbedding")]
    assert len(names) == 1, names
    return getattr(module, names[0])


@pytest.mark.parametrize(("path", "length", "sets"), [(SMOL, 32_768, 1), (GEMMA, 131_072, 2)],
                         ids=["smollm2", "gemma3"])
def test_every_candidate_is_what_transformers_loads(path, length, sets):
    from posemb_cli.commands.extend.measure import scalings_of
    from posemb_cli.commands.extend.predict import run_extend
    from posemb_cli.runtime.transformers_backend.loading import config_with, locate, read_config

    path = _file(path)
    report = run_extend(path, to=length)
    config = read_config(locate(path))
    rotary_class = _rotary_class(config)
    scalings = scalings_of(report)
    assert [one.name for one in scalings] == [one.scaling for one in report.candidates]
    for scaling in scalings:
        assert len(scaling.expected) == sets
        rotary = rotary_class(config_with(config, scaling.rope_parameters, scaling.name))
        for expected in scaling.expected:
            prefix = "" if expected.layer_type is None else f"{expected.layer_type}_"
            kwargs = {} if expected.layer_type is None else {"layer_type": expected.layer_type}
            with torch.inference_mode():
                rotary(torch.zeros(1), torch.arange(length)[None], **kwargs)
            held = getattr(rotary, f"{prefix}inv_freq").double().numpy()
            np.testing.assert_allclose(held, expected.inv_freq, rtol=1e-6, err_msg=f"{scaling.name} {prefix}")
            assert float(getattr(rotary, f"{prefix}attention_scaling")) == pytest.approx(expected.attention_factor,
                                                                                         rel=1e-6)
    if sets == 2:
        sliding = next(one for one in report.sets if one.name == "sliding_attention")
        assert not sliding.needs_extension
        for scaling in scalings:
            kept = next(one for one in scaling.expected if one.layer_type == "sliding_attention")
            assert kept.inv_freq == tuple(sliding.published["inv_freq"])
