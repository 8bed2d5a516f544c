"""Each command's options, from their data (``commands/<name>/options.py``) to Typer parameters.

``@built_from(OPTIONS)`` gives a command one parameter per option (Typer reads its flags,
help, panel and default from there); the values reach the command's body as ``**flags``
and its core as ``Flags``. No torch here: ``--help`` stays instant.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from enum import Enum
from typing import Annotated, Any, TypeVar

import typer

from posemb_cli.request.flags import Flags
from posemb_cli.request.option import Option

__all__ = ["built_from", "command_flags", "parameter", "plain", "typed"]

_Command = TypeVar("_Command", bound=Callable[..., None])


@functools.cache
def _choices(name: str, choices: tuple[str, ...]) -> type[Enum]:
    """The Enum that Typer shows and checks as ``<a|b|c>``, one per option."""
    return Enum(name.title().replace("_", ""), {choice: choice for choice in choices}, type=str)  # type: ignore[return-value]


def _annotation(option: Option) -> Any:
    kind: Any = option.type
    if option.choices is not None:
        enum = _choices(option.name, option.choices)
        kind = enum | None if option.optional else enum
    if option.argument:
        info: Any = typer.Argument(metavar=option.metavar, show_default=option.show_default, help=option.help,
                                   hidden=option.hidden, rich_help_panel=option.panel)
    else:
        info = typer.Option(*option.flags, help=option.help, rich_help_panel=option.panel, metavar=option.metavar,
                            show_default=option.show_default, hidden=option.hidden)
    return Annotated[kind, info]


def parameter(option: Option) -> inspect.Parameter:
    """The keyword parameter Typer reads ``option`` from: its Annotated type and its default."""
    default = inspect.Parameter.empty if option.required else option.default
    if option.choices is not None and default is not None and default is not inspect.Parameter.empty:
        default = _choices(option.name, option.choices)(default)
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=_annotation(option))


def built_from(options: tuple[Option, ...]) -> Callable[[_Command], _Command]:
    """Give a command the parameters of ``options``, in their order; they reach its body as keyword arguments.

    The command declares only ``context: typer.Context``, then ``**flags``.
    """

    def add(command: _Command) -> _Command:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        command.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=own + [parameter(option) for option in options])
        return command

    return add


def plain(flags: dict[str, Any]) -> dict[str, Any]:
    """The flag values with Enum members turned into their strings."""
    return {name: value.value if isinstance(value, Enum) else value for name, value in flags.items()}


def typed(context: typer.Context, name: str) -> bool:
    """Whether the user gave the option ``name`` (on the command line or in the environment)."""
    where = context.get_parameter_source(name)
    return where is not None and where.name in ("COMMANDLINE", "ENVIRONMENT")


def command_flags(context: typer.Context, values: dict[str, Any]) -> Flags:
    """A command's flag values (choices as strings) and those the user gave, for its core in ``request.flags``."""
    given = {name: getattr(value, "value", value) for name, value in context.params.items() if typed(context, name)}
    return Flags(values=plain(values), typed=given)
