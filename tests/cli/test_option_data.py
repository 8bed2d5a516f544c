"""The Typer commands are built from the options' data, and ``Option.check`` reads a value as Typer's parser does:
the same value, or the same refusal line (the line ``posemb`` prints for the same text)."""

from __future__ import annotations

import math
from enum import Enum
from importlib import import_module

import pytest
import typer
from posemb_cli.cli.app import app
from posemb_cli.cli.usage_errors import bad_parameter_line
from posemb_cli.errors import PosembError
from posemb_cli.request.option import Option

COMMANDS = ["compare", "inspect", "order", "bench", "sweep", "precision", "padding", "doctor", "heads", "extend"]
GROUP = typer.main.get_command(app)

SAMPLES = {
    int: ["3", " 3 ", "3.0", "+3", "-2", "0003", "1_000", "1__0", "_1", "3.", "3.5", "1e3", "0x10", "abc", "", " ",
          "١٢", "inf", 3, 3.0, 3.5, True, float("inf"), float("nan"), 1e19, 9.2e18, b"7"],
    float: ["2", " 2.5 ", "1e3", "1E-3", "inf", "-Infinity", "nan", "1_0.5", "1_e3", "3.", ".5", "_1", "1_", "1__0",
            "ten", "", "0x10", "١٢", 2, 2.5, True, float("inf"), 10 ** 400, b"1.5"],
    bool: ["yes", "no", "on", "off", "TRUE", "f", "1", "0", "", " y ", "maybe", "2", 0, 1, 2, 1.0, 0.5, True, False],
    str: ["x", "", "a,b", 3, 2.5, True, b"bytes"],
}


def _options(name: str) -> tuple[Option, ...]:
    return import_module(f"posemb_cli.commands.{name}.options").OPTIONS


def _typer(option: Option, command, value) -> tuple[str, str]:
    param = next(param for param in command.params if param.name == option.name)
    try:
        got = param.process_value(typer.Context(command), value)
    except Exception as exc:
        line = bad_parameter_line(exc, [option.flag, value if isinstance(value, str) else str(value)])
        assert line is not None, exc
        return "refused", line
    got = got.value if isinstance(got, Enum) else got
    return "read", repr(list(got) if isinstance(got, tuple) else got)


def _ours(option: Option, value) -> tuple[str, str]:
    try:
        got = option.check(value)
    except PosembError as exc:
        return "refused", str(exc)
    return "read", repr(got)


@pytest.mark.parametrize("name", COMMANDS)
def test_the_typer_command_is_the_options_in_their_order(name):
    command = GROUP.commands[name]
    params = [param for param in command.params if param.name != "help"]
    options = _options(name)
    assert [param.name for param in params] == [option.name for option in options]
    for param, option in zip(params, options, strict=True):
        assert sorted(param.opts) == sorted(option.flags or (option.name,)), option.name
        assert param.required == option.required, option.name
        default = param.default.value if isinstance(param.default, Enum) else param.default
        assert option.required or default == option.default, option.name


def _cases():
    seen: set[Option] = set()  # a shared option once, under the first command that takes it
    for name in COMMANDS:
        for option in _options(name):
            if option in seen:
                continue
            seen.add(option)
            if option.is_list:
                yield name, option, ["a.txt", "b,c.txt"]
                continue
            samples = list(SAMPLES[option.base])
            if option.choices is not None:
                samples = [*option.choices, option.choices[0].upper(), "nope", "", 3, "x" * 60]
            for value in samples:
                yield name, option, value


CASES = list(_cases())


@pytest.mark.parametrize("name, option, value", CASES,
                         ids=[f"{name}-{option.name}-{value!r}"[:60] for name, option, value in CASES])
def test_check_reads_a_value_as_typer_does(name, option, value):
    ours, theirs = _ours(option, value), _typer(option, GROUP.commands[name], value)
    if ours[0] == "read" and isinstance(value, float) and math.isnan(value):
        assert ours == theirs == ("read", "nan")
    assert ours == theirs
