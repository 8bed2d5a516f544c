"""A refusal about MODEL's files names MODEL as the user typed it, and only those files; a flag's file, the flag."""

from __future__ import annotations

import pytest
from posemb_cli.errors import ConfigError, FileError, PosembError
from posemb_cli.run.models.model_source import as_argument, said, speaking_of
from posemb_cli.sources.naming.model_file import ModelFile, option_model

NAMED = ModelFile("org/name", "/cache/snapshots/abc", "checkpoint", "/cache/snapshots/abc/config.json",
                  "Hugging Face cache")


def _worded(model: ModelFile | None, error: PosembError) -> str:
    with pytest.raises(PosembError) as raised, speaking_of(model):
        raise error
    return str(raised.value)


@pytest.mark.parametrize("error, said_as", [
    (FileError("/cache/snapshots/abc", "no weights"), "MODEL org/name (/cache/snapshots/abc): no weights"),
    (ConfigError("/cache/snapshots/abc/config.json", "rope_theta must be above 1"),
     "MODEL org/name (/cache/snapshots/abc/config.json): rope_theta must be above 1"),
    (FileError("/cache/snapshots/abc", "cannot tell", part="(config.json)"),
     "MODEL org/name (/cache/snapshots/abc) (config.json): cannot tell"),
    (FileError("/cache/snapshots/abc/model.safetensors", "another file"),  # not a file MODEL named: its flag
     "--checkpoint /cache/snapshots/abc/model.safetensors: another file"),
    (FileError("--ids ids.json", "not readable JSON"), "--ids ids.json: not readable JSON"),  # not the model's
    (PosembError("--key needs --checkpoint PATH"), "--key needs --checkpoint PATH"),
])
def test_a_refusal_names_the_model_as_named(error, said_as):
    assert _worded(NAMED, error) == said_as


def test_a_flag_names_its_file_and_a_setting_is_the_config_s():
    checkpoint = option_model("checkpoint", "/models/m")
    assert _worded(checkpoint, FileError("/models/m", "no weights")) == "--checkpoint /models/m: no weights"
    assert _worded(checkpoint, ConfigError("/models/m/config.json", "rope_theta must be above 1")) == \
        "--config /models/m/config.json: rope_theta must be above 1"
    config = option_model("model_config", "c.json")
    assert _worded(config, FileError("c.json", "not JSON")) == "--config c.json: not JSON"
    assert _worded(None, FileError("c.json", "not JSON")) == "c.json: not JSON"


def test_messages_above_the_readers_name_it_alike():
    assert said(NAMED, "/cache/snapshots/abc/config.json") == "MODEL org/name (/cache/snapshots/abc/config.json)"
    assert said(NAMED, "org/name") == "MODEL org/name"
    assert as_argument(NAMED, "/cache/snapshots/abc") == "org/name"
    assert as_argument(NAMED, "/cache/snapshots", flag="--checkpoint") == "--checkpoint /cache/snapshots"
    assert said(option_model("model_config", "c.json"), "c.json") == "--config c.json"
