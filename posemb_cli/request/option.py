"""Every option of a command as data: its flags, type, default, choices and help, read by the CLI and the API alike.

A command lists its options once, in ``posemb_cli/commands/<name>/options.py``: its own,
then the shared groups of ``option_groups``. The CLI builds its Typer parameters from that
list (the help in the list's order); the Python API takes its defaults from it and checks
each keyword argument with ``Option.check``, which reads a value as the command line reads
the same text and refuses it with the same line.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Union, get_args, get_origin

from posemb_cli.errors import PosembError
from posemb_cli.request import values
from posemb_cli.request.flags import Flags

__all__ = ["REQUIRED", "Option", "api_options", "given_flags", "without"]

REQUIRED: Any = ...  # the default of an option that must be given


@dataclass(frozen=True)
class Option:
    """One option (or argument) of a command.

    Attributes:
        name: the parameter name, e.g. ``seq_len``; the API's keyword.
        flags: the flag names, e.g. ``("--seq-len", "-t")``; empty for an argument.
        type: ``int``, ``float``, ``str``, ``bool`` or ``list[str]``, or one of them ``| None``.
        default: the value when it is left out; ``REQUIRED`` when it must be given.
        help: the help text.
        choices: the allowed values (strings), or None for any.
        metavar: the value's name in the help, or None for the type's.
        panel: the help panel, or None for the plain "Options" one.
        show_default: whether the help shows the default.
        hidden: whether the help leaves it out.
        argument: whether it is a positional argument (``metavar`` names it) rather than a flag.
        cli_only: whether only the CLI takes it (how to print, not what to compute).
        items: the type of each item where the value is a comma list (``--schemes rope,alibi``: ``str``); the
            Python API takes a list of them too. None: one value.
    """

    name: str
    flags: tuple[str, ...]
    type: Any
    default: Any = REQUIRED
    help: str = ""
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    panel: str | None = None
    show_default: bool = True
    hidden: bool = False
    argument: bool = False
    cli_only: bool = False
    items: Any = None

    @property
    def flag(self) -> str:
        """The name in messages: the longest flag (``--seq-len``), or an argument's metavar."""
        return max(self.flags, key=len) if self.flags else self.metavar or self.name.upper()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def optional(self) -> bool:
        """Whether None is a value of its type (``int | None``)."""
        return type(None) in get_args(self.type)

    @property
    def base(self) -> Any:
        """Its type without None: ``int`` for ``int | None``, ``list[str]`` for ``list[str] | None``."""
        if get_origin(self.type) in (Union, types.UnionType):
            return next(arg for arg in get_args(self.type) if arg is not type(None))
        return self.type

    @property
    def is_list(self) -> bool:
        return get_origin(self.base) is list

    def check(self, value: Any) -> Any:
        """``value`` as the command line reads the same text: converted, or refused with the CLI's line.

        A list or tuple given to an option that takes one value is joined into the command line's
        comma list; a single value given to a list option is a list of one.

        Raises:
            PosembError: the CLI's line for the value, e.g. ``--dim: 'abc' is not a valid integer``.
        """
        if value is None:
            if self.default is not None:
                raise PosembError(f"{self.flag}: None is not a value; leave it out for its default")
            return None
        if self.is_list:
            items = value if isinstance(value, (list, tuple)) else [value]
            return [values.to_str(self.flag, item) for item in items]
        if isinstance(value, (list, tuple)):
            value = ",".join(map(str, value))
        if self.choices is not None:
            return values.to_choice(self.flag, value, self.choices)
        read = {int: values.to_int, float: values.to_float, bool: values.to_bool}.get(self.base, values.to_str)
        return read(self.flag, value)


def without(group: tuple[Option, ...], *names: str) -> tuple[Option, ...]:
    """The options of ``group`` but those named."""
    return tuple(option for option in group if option.name not in names)


def api_options(options: tuple[Option, ...]) -> dict[str, Option]:
    """The options the Python API takes, by name: all but the CLI's own (``--json``, ``--debug``, ...)."""
    return {option.name: option for option in options if not option.cli_only}


def given_flags(command: str, options: tuple[Option, ...], given: Mapping[str, Any]) -> Flags:
    """A command's ``Flags`` from keyword arguments: each checked, the others at their defaults.

    A list option given None is left out, as on the command line.

    Raises:
        TypeError: for a keyword that is no option of the command.
        PosembError: the CLI's line for a value it would refuse.
    """
    known = api_options(options)
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise TypeError(f"{command}() got an unexpected keyword argument {unknown[0]!r}")
    checked = {name: known[name].check(value) for name, value in given.items()
               if not (value is None and known[name].is_list)}
    defaults = {name: option.default for name, option in known.items() if not option.required}
    return Flags(values={**defaults, **checked}, typed=checked)
