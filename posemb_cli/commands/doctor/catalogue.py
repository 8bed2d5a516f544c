"""Every rule id doctor can report, with a one-line description (SARIF's ``shortDescription``).

A finding's own message says what was found in this model; this is what the rule checks in
any model. A test holds every id the rules emit to an entry here.
"""

from __future__ import annotations

RULES = {
    "head-size": "The head size follows from head_dim, or from hidden_size and num_attention_heads",
    "partial-rotary": "The rotary share of each head is in (0, 1] and rotates a whole, even number of features",
    "rope-theta-missing": "The RoPE base is written, as a number above 1",
    "rope-base-bound": "The RoPE base's context bound (Men et al. 2024) covers the distances its layers attend",
    "low-precision-positions": "Positions held in the model's 16-bit dtype stay distinct over its context",
    "unknown-rope-type": "The rope type is one a loader computes",
    "rope-type-conflict": "A rope block's older type names the same formula as its rope_type",
    "unknown-field": "Every key of the rope block is read by a loader of its rope type",
    "missing-field": "The rope block has every key its rope type needs",
    "factor-below-one": "The scaling factor is a number, 1 or more",
    "scaling-lengths": "The trained length, the factor and the extended context of a scaling agree",
    "yarn-attention-factor": "A YaRN attention factor given is the method's own, 0.1 ln(factor) + 1",
    "no-rope": "The model's kind of position (nothing to check for RoPE when it has none)",
    "no-config": "A checkpoint's position table has a config.json beside it to be checked against",
    "table-short": "A learned position table has a row for every position of the context",
}

__all__ = ["RULES", "describe"]


def describe(rule_id: str) -> str:
    """The rule's description; an id without one is described by itself."""
    return RULES.get(rule_id, rule_id)
