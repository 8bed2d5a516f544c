"""`posemb precision`'s core: a rope or sinusoidal signal in each dtype, native and cast, against float64.

The frequencies are the scheme's as used (RoPE after scaling, with dynamic NTK
sized for ctx); the figures are ``measures.precision``'s. Any attention factor
(YaRN) multiplies cos and sin afterwards and is left out: the figures are
those of cos and sin themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.commands.precision.report import PrecisionReport
from posemb_cli.core.dtypes import DTYPES, SIGNAL_RECIPES
from posemb_cli.core.settings import EmbeddingConfig, rope_scaling_of
from posemb_cli.errors import PosembError
from posemb_cli.measures.precision import RECIPES, PrecisionResult, measure_precision

if TYPE_CHECKING:
    from posemb_cli.sources.model.rope_model import RopeModel

PRECISION_SCHEMES = ("rope", "sinusoidal")
_ROPE_KEYS = ("head_dim", "rope_scaling", "rope_factor", "original_ctx", "beta_fast", "beta_slow",
              "low_freq_factor", "high_freq_factor")

__all__ = ["PRECISION_SCHEMES", "SetPrecision", "parse_dtypes", "run_model_precision", "run_precision",
           "signal_frequencies"]


def parse_dtypes(text: str) -> tuple[str, ...]:
    """A comma list of dtypes from DTYPES, each once; PosembError naming --dtypes otherwise."""
    names = tuple(part.strip() for part in text.split(","))
    if not names or any(name not in DTYPES for name in names):
        raise PosembError(f"--dtypes needs a comma list from {', '.join(DTYPES)}, got {text!r}")
    if len(set(names)) != len(names):
        raise PosembError(f"--dtypes: each dtype may be named once, got {text!r}")
    return names


def signal_frequencies(config: EmbeddingConfig, scheme: str) -> tuple[np.ndarray, bool]:
    """The (F,) float64 frequencies of the scheme as configured, and whether the last one has only a sin."""
    if scheme == "rope":
        from posemb_cli.core.schemes.rope_scaling import rope_frequencies

        head_dim = config.head_dim or config.dim
        return rope_frequencies(head_dim, config.base, rope_scaling_of(config), seq_len=config.ctx)[1], False
    pairs = np.arange((config.dim + 1) // 2, dtype=np.float64)
    return 1.0 / config.base ** (2.0 * pairs / config.dim), config.dim % 2 == 1


def run_precision(config: EmbeddingConfig, scheme: str, dtypes: tuple[str, ...], *,
                  source: dict | None = None) -> PrecisionReport:
    """Measure every dtype with both recipes over positions 0..ctx-1.

    Args:
        config: settled settings (dim, ctx, base and, for rope, the head size and scaling).
        scheme: ``rope`` or ``sinusoidal``.
        dtypes: the dtypes to measure.
        source: a real model's ``{"config": path, ...}``, kept in the config object.
    """
    frequencies, lone_sin = signal_frequencies(config, scheme)
    results = [measure_precision(frequencies, config.ctx, dtype, recipe, lone_sin=lone_sin)
               for dtype in dtypes for recipe in RECIPES]
    settings = {"scheme": scheme, "dim": config.dim, "ctx": config.ctx, "base": config.base}
    if scheme == "rope":
        settings.update({key: getattr(config, key) for key in _ROPE_KEYS})
    settings.update({"dtypes": list(dtypes), "recipes": list(RECIPES), "frequencies": int(frequencies.shape[0]),
                     "signal_recipe": {dtype: SIGNAL_RECIPES[dtype] for dtype in dtypes}})
    if source is not None:
        settings["source"] = source
    return PrecisionReport(config=settings, results=results)


@dataclass(frozen=True)
class SetPrecision:
    """One dtype and recipe measured for one RoPE set of a real model (reads as its ``PrecisionResult``)."""

    rope_set: str
    result: PrecisionResult

    def __getattr__(self, name: str):
        return getattr(self.result, name)

    def to_dict(self) -> dict:
        return {**self.result.to_dict(), "rope_set": self.rope_set}


def run_model_precision(model: RopeModel, dtypes: tuple[str, ...], *, source: dict) -> PrecisionReport:
    """Every RoPE set of a real model (the one that attends farthest first), each with its own frequencies as the
    runtime applies them (any scaling, at the context the set runs at), over every position of that context: a
    sliding set's layers attend within their window, but rotate queries and keys at every absolute position."""
    from posemb_cli.core.schemes.rope_scaling import rope_frequencies

    results, sets = [], []
    for one in model.layer_types():
        name = one.layer_type or "shared"
        frequencies = rope_frequencies(one.rotary_dim, one.base, one.scaling, seq_len=one.ctx)[1]
        results += [SetPrecision(name, measure_precision(frequencies, one.ctx, dtype, recipe))
                    for dtype in dtypes for recipe in RECIPES]
        sets.append({"rope_set": name, "base": one.base, "ctx": one.ctx, "rotary_dim": one.rotary_dim,
                     "scaling": one.scaling.kind, "frequencies": int(frequencies.shape[0])})
    s = model.scaling  # the lead set's settings at the keys every precision document has
    settings = {"scheme": "rope", "dim": model.rotary_dim, "ctx": model.ctx, "base": model.base,
                "head_dim": model.rotary_dim, "rope_scaling": s.kind, "rope_factor": s.factor,
                "original_ctx": s.original_ctx, "beta_fast": s.beta_fast, "beta_slow": s.beta_slow,
                "low_freq_factor": s.low_freq_factor, "high_freq_factor": s.high_freq_factor,
                "dtypes": list(dtypes), "recipes": list(RECIPES), "frequencies": sets[0]["frequencies"],
                "signal_recipe": {dtype: SIGNAL_RECIPES[dtype] for dtype in dtypes}, "source": source,
                "rope_sets": sets}
    return PrecisionReport(config=settings, results=results)
