"""Whether each scaling needs fine-tuning, by the published evidence (plain data and one rule).

- PI paper (Chen et al. 2023): LLaMA-7B without scaling has perplexity above 10^3 past its 2,048 positions;
  Position Interpolation needs fine-tuning (about 1,000 steps) before it holds.
- YaRN paper (Peng et al. 2023): NTK-aware and dynamic NTK extend a model without fine-tuning, YaRN further
  than either; fine-tuned, YaRN beats PI and NTK (Table 1, Llama-2 7B 4k to 8k: 6.04 against 8.07 and 6.24).
- LongRoPE (Ding et al. 2024, Fig. 3): without fine-tuning PI, dynamic NTK and YaRN all degrade past about 2x.
- llama3 scaling was published with continued pre-training (Llama 3.1); LongRoPE's factors are searched for
  the model's own extended length.

Graded by the evidence at the candidate's stretch (the target over the trained length T):

- ``no``: the publisher's own inference-time recipe for this length (the model card's block, ``publisher``), or
  a scaling the evidence says holds without fine-tuning (ntk, dynamic, yarn) up to about twice T;
- ``beyond 2x``: those scalings past about twice T, where LongRoPE's Fig. 3 shows them degrade without
  fine-tuning, though less than the rest (YaRN is what Qwen publishes for 4x, untrained);
- ``yes``: none, linear, llama3 and LongRoPE at any stretch past T (published with training, or degrading
  without it).
"""

from __future__ import annotations

_EVIDENCE = {
    "none": ("yes", "no extension: past its trained length a model's perplexity explodes (PI paper: above 10^3 "
                    "for LLaMA-7B past 2,048)"),
    "linear": ("yes", "PI degrades without fine-tuning and holds after about 1,000 steps of it (PI paper)"),
    "ntk": ("no", "NTK-aware extends without fine-tuning, less far than YaRN (YaRN paper)"),
    "dynamic": ("no", "dynamic NTK holds without fine-tuning (YaRN paper)"),
    "yarn": ("no", "YaRN holds further than PI and NTK without fine-tuning, and fine-tunes best (YaRN paper)"),
    "llama3": ("yes", "published with continued pre-training (Llama 3.1), not without it"),
    "longrope": ("yes", "LongRoPE's factors are searched for the model's own extended length; past it they "
                        "are untested"),
}
_PAST_TWO = "; past about 2x all of PI, dynamic NTK and YaRN degrade without fine-tuning (LongRoPE, Fig. 3)"

__all__ = ["fine_tuning"]


def fine_tuning(scaling: str, stretch: float, published: str | None = None) -> tuple[str, str]:
    """(``no``, ``beyond 2x`` or ``yes``, the evidence) for ``scaling`` at ``stretch`` = target / trained length;
    ``published``: where the publisher's recipe for this length is this candidate, in words."""
    if published is not None:
        return "no", f"the publisher's inference-time recipe for this length ({published}), used without training"
    level, evidence = _EVIDENCE[scaling]
    if level == "no" and stretch > 2:
        return "beyond 2x", evidence + _PAST_TWO
    return level, evidence
