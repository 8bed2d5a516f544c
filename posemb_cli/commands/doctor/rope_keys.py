"""The keys each rope type reads from a config's rope block, as transformers 5.24's ``modeling_rope_utils``
validates them (required, then optional), plus ``type``/``partial_rotary_factor`` that every type accepts.

posemb's own reader also takes ``original_max_position_embeddings`` for ``dynamic``.
"""

from __future__ import annotations

ALWAYS = frozenset({"rope_type", "type", "partial_rotary_factor", "mrope_section", "mrope_interleaved"})

REQUIRED = {
    "default": frozenset({"rope_type"}),
    "axial": frozenset({"rope_type"}),
    "linear": frozenset({"rope_type", "factor"}),
    "dynamic": frozenset({"rope_type", "factor"}),
    "yarn": frozenset({"rope_type", "factor", "original_max_position_embeddings"}),
    "longrope": frozenset({"rope_type", "short_factor", "long_factor", "original_max_position_embeddings"}),
    "llama3": frozenset({"rope_type", "factor", "original_max_position_embeddings", "low_freq_factor",
                         "high_freq_factor"}),
    "proportional": frozenset({"rope_type"}),
}

OPTIONAL = {
    "default": frozenset({"rope_theta"}),
    "axial": frozenset({"rope_theta"}),
    "linear": frozenset({"rope_theta"}),
    "dynamic": frozenset({"rope_theta", "original_max_position_embeddings"}),
    "yarn": frozenset({"rope_theta", "attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
                       "truncate"}),
    "longrope": frozenset({"rope_theta", "attention_factor", "factor"}),
    "llama3": frozenset({"rope_theta"}),
    "proportional": frozenset({"rope_theta"}),
}

EXTENDING = ("yarn", "llama3", "longrope", "dynamic")  # types whose lengths are checked against each other
EVERY_KEY = frozenset().union(ALWAYS, *REQUIRED.values(), *OPTIONAL.values())

__all__ = ["ALWAYS", "EVERY_KEY", "EXTENDING", "OPTIONAL", "REQUIRED", "known_keys"]


def known_keys(rope_type: str) -> frozenset[str]:
    """Every key some loader reads for ``rope_type`` (empty for a type no loader knows)."""
    if rope_type not in REQUIRED:
        return frozenset()
    return ALWAYS | REQUIRED[rope_type] | OPTIONAL[rope_type]
