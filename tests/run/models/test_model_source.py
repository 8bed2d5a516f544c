"""A refusal about MODEL's files names MODEL as the user typed it, and only those files."""

from __future__ import annotations

import pytest
from posemb_cli.run.models.model_source import NamedModel

NAMED = NamedModel("org/name", "/cache/snapshots/abc", True, "Hugging Face cache", "/cache/snapshots/abc/config.json")


@pytest.mark.parametrize("message, said", [
    ("--checkpoint /cache/snapshots/abc: no weights", "MODEL org/name (/cache/snapshots/abc): no weights"),
    ("--config /cache/snapshots/abc/config.json: rope_theta must be above 1",
     "MODEL org/name (/cache/snapshots/abc/config.json): rope_theta must be above 1"),
    ("--base conflicts with --config /cache/snapshots/abc/config.json, which sets the model's RoPE",
     "--base conflicts with MODEL org/name (/cache/snapshots/abc/config.json), which sets the model's RoPE"),
    ("analyse it with posemb inspect --checkpoint /cache/snapshots/abc", "analyse it with posemb inspect org/name"),
    ("--checkpoint /cache/snapshots/abc/model.safetensors: another file", None),  # not a file MODEL named
    ("--checkpoint /cache/snapshots/abcd: a longer path", None),
    ("--key needs --checkpoint PATH", None),
])
def test_restated(message, said):
    assert NAMED.restate(message) == (message if said is None else said)
