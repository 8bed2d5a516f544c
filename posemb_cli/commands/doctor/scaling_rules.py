"""Rules on the rope block itself: its type, its keys, its factor and how its lengths agree.

Ids: unknown-rope-type, rope-type-conflict, unknown-field, missing-field, factor-below-one,
scaling-lengths, yarn-attention-factor. The block is read as transformers reads it: ``rope_type``
over the older ``type``, a family's renames (Phi-3's "su"), and the config's own
``original_max_position_embeddings`` (file or class default) ahead of the block's.
"""

from __future__ import annotations

import difflib
import math

from posemb_cli.commands.doctor.report import Finding
from posemb_cli.commands.doctor.rope_keys import EVERY_KEY, EXTENDING, REQUIRED, known_keys
from posemb_cli.commands.doctor.subject import Subject, number
from posemb_cli.core.schemes.rope_scaling import yarn_attention_factor

__all__ = ["scaling_findings"]


def _keys(model: Subject) -> list[Finding]:
    rope_type, found = model.rope_type, []
    if rope_type not in REQUIRED:
        named = "type" if "type" in model.block_values and "rope_type" not in model.block_values else "rope_type"
        return [Finding("unknown-rope-type", "error",
                        f"{model.label(named, in_block=True)} {rope_type!r} is computed by no loader "
                        "posemb knows",
                        f"use one of {', '.join(REQUIRED)}", key=model.label(named, in_block=True))]
    known = known_keys(rope_type)
    for key in sorted(set(model.block_values) - known):
        close = difflib.get_close_matches(key, sorted(EVERY_KEY), n=1, cutoff=0.8)
        if close:
            found.append(Finding("unknown-field", "error",
                                 f"{model.label(key, in_block=True)} is read by no {rope_type} loader; it looks like "
                                 f"a misspelling of {close[0]!r}, whose value is then silently left at its default",
                                 f"rename {key!r} to {close[0]!r}", key=model.label(key, in_block=True)))
        else:
            found.append(Finding("unknown-field", "warning",
                                 f"{model.label(key, in_block=True)} is read by no {rope_type} loader and is ignored",
                                 f"remove {key!r} or check the rope_type", key=model.label(key, in_block=True)))
    missing = REQUIRED[rope_type] - set(model.block_values) - {"rope_type"}
    if model.original()[0] is not None:  # the config's own length fills the block, as transformers does
        missing -= {"original_max_position_embeddings"}
    for key in sorted(missing):
        if rope_type == "yarn" and key == "original_max_position_embeddings":  # loaders infer it
            found.append(Finding("missing-field", "warning",
                                 f"{model.label(key, in_block=True)} is missing: loaders take max_position_embeddings "
                                 "as the trained length, so the yarn stretch starts from the extended context",
                                 f"add {key!r} with the length the model was trained at",
                                 key=model.label(key, in_block=True)))
            continue
        why = _WITHOUT_ORIGINAL.get(rope_type, "") if key == "original_max_position_embeddings" else ""
        found.append(Finding("missing-field", "error",
                             f"{model.label(key, in_block=True)} is missing: {rope_type} needs it{why}",
                             f"add {key!r} to {model.block_name}", key=model.label(key, in_block=True)))
    return found


# What transformers computes when a block's trained length is missing (it takes max_position_embeddings).
_WITHOUT_ORIGINAL = {
    "longrope": " (transformers then takes max_position_embeddings as the trained length, so the long factors never "
                "apply)",
    "llama3": " (transformers then takes max_position_embeddings as the trained length, so the wavelengths it keeps "
              "are judged against the extended context)",
}


def _type_conflict(model: Subject) -> list[Finding]:
    block = model.block_values
    if "rope_type" not in block or "type" not in block:
        return []
    named, legacy = block["rope_type"], block["type"]
    if named == legacy or (named, legacy) in (("mrope", "default"), ("default", "mrope")):  # mrope reads as default
        return []
    return [Finding("rope-type-conflict", "warning",
                    f"{model.label('type', in_block=True)} {legacy!r} disagrees with "
                    f"{model.label('rope_type', in_block=True)} {named!r}: transformers reads rope_type and ignores "
                    "type",
                    f"remove {'type'!r}, or set it to {named!r}", key=model.label("type", in_block=True))]


def _factor(model: Subject) -> list[Finding]:
    if "factor" not in model.block_values:
        return []
    factor = number(model.block_values["factor"])
    if factor is None:
        return [Finding("factor-below-one", "error",
                        f"{model.label('factor', in_block=True)} is {model.block_values['factor']!r}, not a number",
                        "give the context extension factor as a number, 1 or more",
                        key=model.label("factor", in_block=True))]
    if factor < 1:
        return [Finding("factor-below-one", "error",
                        f"{model.label('factor', in_block=True)} is {factor:g}: a factor below 1 shrinks the "
                        "context instead of stretching it",
                        "give the factor as new context / trained context (1 or more)",
                        key=model.label("factor", in_block=True))]
    return []


def _lengths(model: Subject) -> list[Finding]:
    rope_type = model.rope_type
    block = model.block_values
    (original, label), factor = model.original(), number(block.get("factor"))
    maximum = model.max_positions
    if rope_type not in EXTENDING or original is None or maximum is None:
        return []
    if original > maximum:
        return [Finding("scaling-lengths", "error",
                        f"{label} {original:g} is above {model.label('max_position_embeddings')} {maximum}: the "
                        "trained context cannot be longer than the extended one",
                        "swap the two lengths, or set max_position_embeddings to the extended context", key=label)]
    if factor is None or factor < 1:
        return []
    reached = original * factor
    if rope_type == "llama3":  # the factor divides low frequencies; transformers asks only original < maximum
        if original == maximum:
            return [Finding("scaling-lengths", "warning",
                            f"{label} equals max_position_embeddings {maximum}: llama3 scaling extends nothing",
                            "set max_position_embeddings to the extended context", key=label)]
        return []
    if rope_type == "yarn" and original == maximum:  # transformers reads this as the length inferred, not set
        return []
    if not math.isclose(reached, maximum, rel_tol=1e-9):
        return [Finding("scaling-lengths", "warning",
                        f"{label} {original:g} × factor {factor:g} = {reached:g}, but max_position_embeddings is "
                        f"{maximum}: the {rope_type} stretch and the context disagree",
                        f"set factor to {maximum / original:g}, or max_position_embeddings to {reached:g}", key=label)]
    return []


def _yarn_attention(model: Subject) -> list[Finding]:
    if model.rope_type != "yarn" or "attention_factor" not in model.block_values:
        return []
    given, factor = number(model.block_values["attention_factor"]), number(model.block_values.get("factor"))
    if given is None or factor is None or factor <= 1 or "mscale" in model.block_values:
        return []
    default = yarn_attention_factor(factor)
    if math.isclose(given, default, rel_tol=1e-6):
        return []
    return [Finding("yarn-attention-factor", "info",
                    f"{model.label('attention_factor', in_block=True)} {given:g} differs from YaRN's "
                    f"0.1 ln(factor) + 1 = {default:.6g} for factor {factor:g}: logits are scaled by a different "
                    "temperature than the method's",
                    "leave attention_factor out unless the model was trained with this value",
                    key=model.label("attention_factor", in_block=True))]


def scaling_findings(model: Subject) -> list[Finding]:
    """Every finding about the rope block (none when the config has no block)."""
    if model.block is None:
        return []
    found = _type_conflict(model) + _keys(model)
    if any(finding.id == "unknown-rope-type" for finding in found):
        return found
    return found + _factor(model) + _lengths(model) + _yarn_attention(model)
