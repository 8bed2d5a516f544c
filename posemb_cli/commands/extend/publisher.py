"""The publisher's own inference-time recipe for long inputs, from the model card beside the model's files.

Model cards publish the block to add for long inputs: Qwen2.5 and Qwen3 give, in their README.md, a
``"rope_scaling"`` object (yarn, factor 4, original 32,768 for 131,072 tokens) to add to config.json, used without
training. A card's block is read as such a recipe: its ``type`` (or ``rope_type``), ``factor`` and
``original_max_position_embeddings``; it covers L up to ``factor x original``. A card without one, or a GGUF file
(no card beside it), gives none. No torch here.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

CARD_NAMES = ("README.md",)
_MAX_CARD_BYTES = 1 << 20  # a model card is text; a larger file is not read
_BLOCK = re.compile(r'"rope_scaling"\s*:\s*(\{[^{}]*\})', re.S)

__all__ = ["Recipe", "read_recipe"]


@dataclass(frozen=True)
class Recipe:
    """A published scaling for long inputs: what it is, how far it reaches and where it was read."""

    scaling: str
    factor: float
    original: int | None
    source: str

    @property
    def reach(self) -> int | None:
        return None if self.original is None else round(self.factor * self.original)

    def covers(self, scaling: str, factor: float | None, target: int) -> bool:
        """Whether a candidate is this recipe at a target it reaches: the same scaling and factor (the card's block
        is static: below its reach it is still that factor, which ``--factor`` gives)."""
        if scaling != self.scaling or factor is None or self.reach is None or target > self.reach:
            return False
        return abs(factor - self.factor) <= 1e-9 * self.factor

    def to_dict(self) -> dict:
        return {"scaling": self.scaling, "factor": self.factor, "original_max_position_embeddings": self.original,
                "reach": self.reach, "source": self.source}


def _card(folder: str) -> str | None:
    for name in CARD_NAMES:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.path.getsize(path) <= _MAX_CARD_BYTES:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return handle.read()
    return None


def read_recipe(model_path: str, kind: str) -> Recipe | None:
    """The recipe in the model card beside ``model_path`` (a config.json, a model directory or a weights file),
    or None. A GGUF file carries no card."""
    if kind == "gguf":
        return None
    folder = model_path if os.path.isdir(model_path) else os.path.dirname(os.path.abspath(model_path))
    text = _card(folder)
    if text is None:
        return None
    for match in _BLOCK.finditer(text):
        try:
            block = json.loads(match.group(1))
        except ValueError:
            continue
        scaling = block.get("rope_type", block.get("type"))
        factor = block.get("factor")
        if not isinstance(scaling, str) or isinstance(factor, bool) or not isinstance(factor, (int, float)):
            continue
        original = block.get("original_max_position_embeddings")
        original = int(original) if isinstance(original, (int, float)) and not isinstance(original, bool) else None
        return Recipe(scaling, float(factor), original, f"{os.path.basename(folder) or folder}/README.md")
    return None
