"""The Python API reads each command's options from their data: its keywords are the options, its defaults and
refusals theirs, and it checks a value without the CLI, Typer or Click."""

from __future__ import annotations

import subprocess
import sys
import types
from importlib import import_module
from typing import Union, get_args, get_origin, get_type_hints

import posemb_cli
import pytest
from posemb_cli import api_flags
from posemb_cli.request.option import Option, api_options, given_flags

API_COMMANDS = ["inspect", "compare", "order", "padding", "precision", "doctor", "heads", "extend"]
ALL_COMMANDS = [*API_COMMANDS, "bench", "sweep"]
# What a command's function takes as its arguments rather than as keywords (doctor and heads: their MODEL; heads
# reads --checkpoint as the same model; extend: MODEL and --to).
PATH = {"doctor": {"model"}, "heads": {"model", "checkpoint"}, "extend": {"model", "to"}}


def options_of(name: str) -> tuple[Option, ...]:
    return import_module(f"posemb_cli.commands.{name}.options").OPTIONS


@pytest.mark.parametrize("name", API_COMMANDS)
def test_each_typed_dict_names_the_commands_options(name):
    typed = getattr(api_flags, f"{name.capitalize()}Flags")
    keys = typed.__required_keys__ | typed.__optional_keys__
    assert keys == set(api_options(options_of(name))) - PATH.get(name, set())


@pytest.mark.parametrize("name", API_COMMANDS)
def test_each_typed_dict_takes_the_options_type(name):
    """Each keyword's type admits the option's (a choice is a string; comma lists may also be lists)."""
    hints = get_type_hints(getattr(api_flags, f"{name.capitalize()}Flags"))
    for key, hint in hints.items():
        option = api_options(options_of(name))[key]
        kinds = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
        assert option.base in kinds, (name, key, hint, option.base)


def test_the_typed_dicts_are_written_from_the_options():
    """posemb_cli/api_flags.py is docs/generate_api_flags.py's output for the options as they are declared now."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "docs" / "generate_api_flags.py"
    spec = importlib.util.spec_from_file_location("generate_api_flags", script)
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert Path(api_flags.__file__).read_text(encoding="utf-8") == generator.render(), \
        "stale: run python docs/generate_api_flags.py"


@pytest.mark.parametrize("name", ALL_COMMANDS)
def test_every_comma_list_names_the_type_of_its_items(name):
    """An option the help calls a comma list takes its items' type (the API takes a list of them too)."""
    for option in options_of(name):
        comma = option.help.startswith("Comma list") or (option.metavar or "").endswith(",...")
        assert (option.items is not None) == comma, (name, option.name)
        assert option.items is None or option.base is str, (name, option.name)


@pytest.mark.parametrize("call, key, value", [
    (lambda: given_flags("heads", options_of("heads"), {"distances": [0, 1, 8]}), "distances", "0,1,8"),
    (lambda: given_flags("compare", options_of("compare"), {"schemes": ("rope", "alibi")}), "schemes", "rope,alibi"),
    (lambda: given_flags("precision", options_of("precision"), {"dtypes": ["float32"]}), "dtypes", "float32"),
])
def test_a_comma_list_given_as_a_list_reads_as_the_comma_string(call, key, value):
    assert call()[key] == value


@pytest.mark.parametrize("name", ALL_COMMANDS)
def test_options_are_declared_once_each(name):
    options = options_of(name)
    names = [option.name for option in options]
    flags = [flag for option in options for flag in option.flags]
    assert len(names) == len(set(names)) and len(flags) == len(set(flags))
    for option in options:
        assert option.argument == (not option.flags), option.name
        assert option.choices is None or option.required or option.default in option.choices, option.name


def test_the_defaults_are_the_options():
    flags = given_flags("padding", options_of("padding"), {"pad": "8"})
    assert flags["pad"] == 8 and flags.typed == {"pad": 8}
    assert flags["schemes"] == "none,learned,sinusoidal,rope,alibi" and flags["dtype"] == "float32"
    assert "json" not in flags.values and "max_offset" not in flags.values


@pytest.mark.parametrize("given, value", [
    ({"dim": "64"}, 64), ({"dim": " 64 "}, 64), ({"dim": 64.0}, 64), ({"dim": "1_024"}, 1024),
    ({"base": "1e4"}, 1e4), ({"base": 500000}, 500000.0), ({"no_plot": "yes"}, True), ({"no_plot": 0}, False),
    ({"schemes": ["rope", "alibi"]}, "rope,alibi"), ({"scheme": "rope"}, "rope"),
])
def test_values_are_read_as_the_command_line_reads_them(given, value):
    name = "compare" if "schemes" in given else "inspect"
    flags = given_flags(name, options_of(name), given)
    assert flags[next(iter(given))] == value


@pytest.mark.parametrize("call, line", [
    (lambda: posemb_cli.inspect(dim="abc"), "--dim: 'abc' is not a valid integer"),
    (lambda: posemb_cli.inspect(dim=2.5), "--dim: '2.5' is not a valid integer"),
    (lambda: posemb_cli.inspect(base="ten"), "--base: 'ten' is not a valid number"),
    (lambda: posemb_cli.inspect(no_plot="maybe"), "--no-plot: 'maybe' is not a valid boolean"),
    (lambda: posemb_cli.inspect(dtype="int8"),
     "--dtype: 'int8' is not one of 'float32', 'float64', 'float16', 'bfloat16'"),
    (lambda: posemb_cli.inspect(dim=None), "--dim: None is not a value; leave it out for its default"),
    (lambda: posemb_cli.extend("model.gguf", to="far"), "--to: 'far' is not a valid integer"),
])
def test_a_refused_value_is_the_clis_line(call, line):
    with pytest.raises(posemb_cli.PosembError) as raised:
        call()
    assert str(raised.value) == line


def test_extend_takes_one_text_or_several():
    options = options_of("extend")
    assert given_flags("extend", options, {"text": "a.txt"})["text"] == ["a.txt"]
    assert given_flags("extend", options, {"text": ("a.txt", "b,c.txt")})["text"] == ["a.txt", "b,c.txt"]
    assert not given_flags("extend", options, {"text": None}).given("text")


def test_the_api_checks_values_without_the_cli():
    code = ("import sys, posemb_cli.api as api\n"
            "flags = api._flags('inspect', {'dim': '32', 'dtype': 'bfloat16'})\n"
            "assert flags['dim'] == 32 and flags['dtype'] == 'bfloat16'\n"
            "try:\n    api._flags('inspect', {'scheme': 'rop'})\nexcept Exception as exc:\n    print(exc)\n"
            "loaded = [name for name in sys.modules if name.split('.')[0] in ('typer', 'click', 'torch')\n"
            "          or name.startswith('posemb_cli.cli')]\n"
            "sys.exit(1 if loaded else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "--scheme: 'rop' is not one of 'learned', 'sinusoidal', 'rope', 'alibi', 'none'"
