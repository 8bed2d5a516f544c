"""Which scalings each family can load, held to transformers' own code: the families posemb calls fixed build their
RoPE without ``ROPE_INIT_FUNCTIONS``, every other RoPE family's modeling code takes its frequencies from it, and the
restricted config classes refuse exactly the types posemb says they refuse."""

from __future__ import annotations

import importlib
import inspect

import pytest
from posemb_cli.sources.model.families import ROPE_FAMILIES
from posemb_cli.sources.model.rope_loaders import FIXED_ROPE_FAMILIES, RESTRICTED_FAMILIES, cannot_load

transformers = pytest.importorskip("transformers")

_MODULE = {"gemma3_text": "gemma3"}  # model_type -> transformers' module, where they differ


def _source(family: str) -> str:
    module = _MODULE.get(family, family)
    try:
        found = importlib.import_module(f"transformers.models.{module}.modeling_{module}")
    except ModuleNotFoundError:
        pytest.skip(f"transformers has no {module} (a model with remote code)")
    return inspect.getsource(found)


@pytest.mark.parametrize("family", sorted(FIXED_ROPE_FAMILIES))
def test_fixed_families_build_their_rope_without_rope_parameters(family):
    source = _source(family)
    assert "ROPE_INIT_FUNCTIONS" not in source and "rope_theta" not in source
    assert all(cannot_load(family, scaling) for scaling in ("linear", "ntk", "dynamic", "yarn", "llama3"))
    assert cannot_load(family, "none") is None


@pytest.mark.parametrize("family", sorted(ROPE_FAMILIES - set(FIXED_ROPE_FAMILIES)))
def test_every_other_rope_family_takes_its_frequencies_from_rope_init_functions(family):
    assert "ROPE_INIT_FUNCTIONS[" in _source(family)


@pytest.mark.parametrize(("family", "config"), [("phi3", "Phi3Config")])
def test_restricted_config_classes_refuse_the_types_posemb_leaves_out(family, config):
    allowed, _why = RESTRICTED_FAMILIES[family]
    blocks = {"linear": {"rope_type": "linear", "factor": 2.0}, "dynamic": {"rope_type": "dynamic", "factor": 2.0},
              "yarn": {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 2048},
              "llama3": {"rope_type": "llama3", "factor": 2.0, "original_max_position_embeddings": 2048,
                         "low_freq_factor": 1.0, "high_freq_factor": 4.0},
              "ntk": {"rope_type": "default", "rope_theta": 40_000.0}}
    for scaling, block in blocks.items():
        build = lambda: getattr(transformers, config)(hidden_size=64, num_attention_heads=2, pad_token_id=0,  # noqa: E731
                                                       max_position_embeddings=4096, rope_parameters=dict(block))
        if scaling in allowed:
            build()
            assert cannot_load(family, scaling) is None
        else:
            # linear, dynamic, llama3: "type field must be one of"; yarn is read as longrope, which needs factors
            with pytest.raises(Exception, match="type field must be one of|Missing required keys"):
                build()
            assert cannot_load(family, scaling) is not None
