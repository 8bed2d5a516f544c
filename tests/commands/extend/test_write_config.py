"""``extend --write-config``: the file written loads in transformers as the candidate the report names, per RoPE
set, with no RoPE warning; refusals come before anything is written, and the model's own file is never touched."""

import json
import os

import posemb_cli as posemb
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.commands.extend import loaded_rope

PUBLISHED = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "sources", "published")
runner = CliRunner()


@pytest.mark.parametrize(("name", "to", "scalings"), [
    ("llama-3.1-8b.json", 524_288, None), ("gemma-3-4b-it.json", 262_144, None),
    ("qwen2.5-7b-instruct-yarn.json", 262_144, "yarn"), ("llama-2-7b.json", 16_384, "linear"),
    ("deepseek-v3.json", 327_680, None), ("gpt-oss-20b.json", 262_144, "none"),
])
def test_the_written_config_loads_as_the_candidate(tmp_path, name, to, scalings):
    path = tmp_path / "out" / "config.json"
    path.parent.mkdir()
    given = {} if scalings is None else {"scalings": scalings}
    report = posemb.extend(os.path.join(PUBLISHED, name), to=to, write_config=str(path), **given)
    written = report.written_config
    assert written is not None and written["path"] == str(path)
    scaling = scalings or report.recommendation["scaling"]
    assert written["scaling"] == scaling
    edited = json.loads(path.read_text(encoding="utf-8"))
    with open(os.path.join(PUBLISHED, name), encoding="utf-8") as handle:
        published = json.load(handle)
    changed = {key for key in set(edited) | set(published) if edited.get(key) != published.get(key)}
    touched = {op["key"].split(".")[0] for op in written["ops"]}
    assert changed <= touched  # no other key changed
    loaded, warnings = loaded_rope.load(edited, tmp_path / "load")
    names = [one.name for one in report.sets]
    got = loaded_rope.frequencies(loaded, names, to)
    loaded_rope.assert_same(got, loaded_rope.predicted(report, scaling), f"{name} {scaling}")
    assert not [w for w in warnings if "rope" in w.lower()] or written["notes"], warnings


def test_refusals_write_nothing(tmp_path):
    config = os.path.join(PUBLISHED, "llama-2-7b.json")
    missing = tmp_path / "nowhere" / "config.json"
    result = runner.invoke(app, ["extend", config, "--to", "16384", "--write-config", str(missing)])
    assert result.exit_code == 2 and "--write-config" in result.stderr and not missing.parent.exists()
    assert result.stdout == ""
    with open(config, "rb") as handle:
        before = handle.read()
    result = runner.invoke(app, ["extend", config, "--to", "16384", "--write-config", config])
    assert result.exit_code == 2 and "the model's own config.json" in result.stderr
    with open(config, "rb") as handle:
        assert handle.read() == before  # untouched


def test_a_gguf_file_has_no_config_to_write(tmp_path):
    real = os.path.expanduser(os.environ.get("POSEMB_REAL_MODELS", "~/.cache/posemb-real-models"))
    gguf = os.path.join(real, "SmolLM2-135M-Instruct.Q4_1.gguf")
    if not os.path.exists(gguf):
        pytest.skip("the real GGUF files are not here")
    out = tmp_path / "config.json"
    result = runner.invoke(app, ["extend", gguf, "--to", "16384", "--write-config", str(out)])
    assert result.exit_code == 2 and "GGUF file, which holds no config.json" in result.stderr
    assert not out.exists()
