"""Which RoPE scalings each model family's runtime can load, as transformers 5.24 builds its rotary embedding.

Plain data and one question. Nearly every family's rotary module takes its frequencies from the
config's ``rope_parameters`` through ``ROPE_INIT_FUNCTIONS`` (``linear``, ``dynamic``, ``yarn``,
``llama3``, ``longrope``) or its default formula with the config's ``rope_theta``; those load every
scaling. The families below compute a fixed RoPE in their own modeling code (GPT-J and CodeGen:
``create_sinusoidal_positions`` with base 10,000, no ``rope_theta`` and no ``rope_parameters``), so
they run only as published. Phi-3's config class (and Phi-4-multimodal's) validates the block's type: it
takes ``default`` and ``longrope`` only (``Phi3Config.validate_rope``).

Scaling names are ``posemb extend``'s: ``none``, ``linear``, ``ntk`` (a new ``rope_theta``),
``dynamic``, ``yarn``, ``llama3``, ``longrope``.
"""

from __future__ import annotations

FIXED_ROPE_FAMILIES = {
    "gptj": "transformers' GPT-J computes its RoPE with base 10,000 in its own code (no rope_theta, no "
            "rope_parameters)",
    "codegen": "transformers' CodeGen computes its RoPE with base 10,000 in its own code (no rope_theta, no "
               "rope_parameters)",
}

# family -> the scalings its config class accepts (a default block with its own rope_theta is ntk)
RESTRICTED_FAMILIES = {
    "phi3": (("none", "ntk", "longrope"), "transformers' Phi3Config takes rope_type default and longrope only"),
    "phi4_multimodal": (("none", "ntk", "longrope"),
                        "transformers' Phi4MultimodalConfig takes rope_type default and longrope only"),
}

__all__ = ["FIXED_ROPE_FAMILIES", "RESTRICTED_FAMILIES", "cannot_load"]


def cannot_load(model_type: str | None, scaling: str) -> str | None:
    """Why the family of ``model_type`` cannot load ``scaling`` (None when it can)."""
    family = (model_type or "").lower()
    if scaling != "none" and family in FIXED_ROPE_FAMILIES:
        return FIXED_ROPE_FAMILIES[family]
    allowed, why = RESTRICTED_FAMILIES.get(family, (None, ""))
    if allowed is not None and scaling not in allowed:
        return why
    return None
