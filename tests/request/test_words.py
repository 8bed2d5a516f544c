"""A refusal raised below the request names options by the request's keys; the CLI and the API word them as the
command line spells them. The spelling rule is held to every command's option data, and every key the code names
in a refusal to an option some command takes."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import posemb_cli
import posemb_cli.commands
import pytest
from posemb_cli.errors import FileError, PosembError, ValueRefusal, option
from posemb_cli.request.words import flag_of, worded

PACKAGE = Path(posemb_cli.__file__).parent


def _options():
    for found in pkgutil.iter_modules(posemb_cli.commands.__path__):
        try:
            module = importlib.import_module(f"posemb_cli.commands.{found.name}.options")
        except ModuleNotFoundError:
            continue
        yield from ((found.name, one) for one in module.OPTIONS)


def test_every_option_is_spelled_by_the_rule():
    for command, one in _options():
        spelled = one.metavar if one.argument else max(one.flags, key=len)
        assert flag_of(one.name) == spelled, (command, one.name)


def test_every_key_a_refusal_names_is_an_option():
    """Each key written as option("..."), ValueRefusal("...", ...) or key="..." in the package is some command's."""
    keys = {one.name for _, one in _options()}
    named: set[tuple[str, str]] = set()
    patterns = [r'option\(\s*["\']([a-z_]+)["\']\)', r'ValueRefusal\(\s*["\']([a-z_]+)["\']',
                r'(?:FileError|require_memory|parse_json|refuse_large_json)\((?:[^()]|\([^()]*\))*?\bkey=["\']([a-z_]+)["\']',
                r'^KEY = ["\']([a-z_]+)["\']']
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for pattern in patterns:
            named |= {(found, path.name) for found in re.findall(pattern, text, flags=re.M | re.S)}
    assert named, "the scan finds the refusals"
    assert {key for key, _ in named} >= {"ids", "text", "save_ids", "device", "dtype", "vocab"}
    assert not {(key, where) for key, where in named if key not in keys}


def test_a_refusal_is_worded_as_the_command_line_names_it():
    refusal = ValueRefusal("device", "cuda:9", f"not a device; use {option('device')} cpu")
    assert worded(refusal) == "--device cuda:9: not a device; use --device cpu"
    assert str(refusal) == "device cuda:9: not a device; use device cpu"  # unworded: the keys, no marker
    assert worded(ValueRefusal("ids", None, "needs a file path", lead=" ")) == "--ids needs a file path"
    keyed = FileError("out.txt", f"in the form {option('ids')} reads", key="save_ids")
    assert worded(keyed) == "--save-ids out.txt: in the form --ids reads"
    assert worded(FileError("config.json", "no such file")) == "config.json: no such file"  # a model's file
    plain = PosembError(f"{option('text')} and {option('ids')}: give one")
    assert worded(plain) == "--text and --ids: give one" and "\x00" not in str(plain)


def test_the_api_raises_the_line_the_cli_prints(tmp_path):
    pytest.importorskip("torch")
    from posemb_cli import api

    with pytest.raises(PosembError) as raised:
        api.compare(ids=str(tmp_path / "missing.json"))
    assert str(raised.value).startswith(f"--ids {tmp_path / 'missing.json'}: no such file")
