"""A scaling to measure: the ``rope_parameters`` a runtime is given, and what its rotary module must then hold.

The caller (``posemb extend``) computes both sides itself: the exact transformers 5
``rope_parameters`` dict of a candidate, and the inverse frequencies and attention factor it
predicts for each RoPE set under it. A runtime sets the first and checks the second on the model it
loaded, so that a measured loss is always the loss of the scaling the report names.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["INV_FREQ_RTOL", "RotaryExpectation", "Scaling", "unique_names"]

# How close the runtime's inverse frequencies and attention factor must come to the caller's: transformers
# computes them in float32 (base ** (2i / d) and its inverse: a few float32 ulps, under 1e-6 relative), the
# caller in float64. A wrong factor, base or ramp pair moves a frequency by percents.
INV_FREQ_RTOL = 1e-5


@dataclass(frozen=True)
class RotaryExpectation:
    """One RoPE set's frequencies under a scaling, as the caller predicts them.

    Attributes:
        inv_freq: θ'_i for each rotary pair i, at the measured length (dynamic NTK's at L).
        attention_factor: the factor the runtime multiplies cos and sin by (1 where none).
        layer_type: the set's key in a per-layer-type ``rope_parameters`` (Gemma 3's
            ``"full_attention"``); None for a model with one RoPE set.
    """

    inv_freq: tuple[float, ...]
    attention_factor: float = 1.0
    layer_type: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "inv_freq", tuple(float(value) for value in self.inv_freq))


@dataclass(frozen=True)
class Scaling:
    """A candidate scaling: its name in the report, what the runtime is given, what it must hold.

    Attributes:
        name: the candidate's label, unique within one measurement (``"yarn"``, ``"linear x4"``).
        rope_parameters: ``config.rope_parameters`` as transformers 5 takes it: one block, or one block
            per layer type.
        expected: the frequencies each RoPE set must hold once the model is loaded with it.
        llama_cpp: the llama.cpp flags that run this scaling (``recommendation.engines.llama_cpp.args``), what the
            llama.cpp runtime is given; None where llama.cpp has none, ``llama_cpp_note`` saying why.
    """

    name: str
    rope_parameters: Mapping[str, Any]
    expected: tuple[RotaryExpectation, ...] = field(default=())
    llama_cpp: tuple[str, ...] | None = None
    llama_cpp_note: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a scaling needs a name")
        if not self.expected:
            raise ValueError(f"scaling {self.name}: give the inverse frequencies it must produce (expected)")
        object.__setattr__(self, "rope_parameters", copy.deepcopy(dict(self.rope_parameters)))
        object.__setattr__(self, "expected", tuple(self.expected))
        if self.llama_cpp is not None:
            object.__setattr__(self, "llama_cpp", tuple(str(word) for word in self.llama_cpp))


def unique_names(scalings: Sequence[Scaling]) -> None:
    """Raise ValueError when two scalings share a name (a report keys its measurements by name)."""
    names = [scaling.name for scaling in scalings]
    doubles = sorted({name for name in names if names.count(name) > 1})
    if doubles:
        raise ValueError(f"scalings must have distinct names; given twice: {', '.join(doubles)}")
