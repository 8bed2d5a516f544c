"""The Typer app: joins the subcommands and turns every failure into an exit status.

Exit status: 0 done; 2 bad usage or bad input (one line on stderr); 3 ``doctor``
found an error (its report is printed; ``typer.Exit(3)`` passes through); 1 an
unexpected failure (a short message; the traceback only under --debug).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import traceback
import warnings
from collections.abc import Iterator, Mapping
from typing import Annotated

import typer
from typer.core import TyperCommand, TyperGroup

from posemb_cli import __version__
from posemb_cli.cli.output_faults import OUTPUT_ERRNOS, silence_stdout
from posemb_cli.errors import PosembError, brief


def _fail(message: str, code: int) -> None:
    sys.stderr.write(f"posemb: error: {message}\n")
    sys.stderr.flush()
    sys.exit(code)


def _unexpected(exc: BaseException, debug: bool) -> None:
    if debug:
        traceback.print_exc()
    _fail(f"unexpected failure: {type(exc).__name__}: {brief(exc, 200)}"
          + ("" if debug else " (run with --debug for the traceback)"), 1)


def _interrupted() -> None:
    """Ctrl-C: one line, and the conventional status 128 + SIGINT."""
    sys.stderr.write("\nposemb: interrupted\n" if sys.stderr.isatty() else "posemb: interrupted\n")
    sys.stderr.flush()
    sys.exit(130)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _usage_line(text: str) -> str:
    """Click's usage error as one readable line: a long value given is cut, the validator's prefix dropped."""
    line = _one_line(text).replace("Value error, ", "")
    return re.sub(r"'([^']{40})[^']{8,}'", r"'\1...'", line)


class _Commands(Mapping):
    """The subcommands by name, each imported and built the first time it is looked up (pip's registry): a run
    loads its own command's module alone, and ``posemb --help`` none (it lists ``SHORT_HELP``)."""

    def __init__(self) -> None:
        self._built: dict[str, TyperCommand] = {}
        self.listing = False  # while the help lists the commands: a stand-in per name, nothing imported

    def __getitem__(self, name: str):
        if name not in SHORT_HELP:
            raise KeyError(name)
        if self.listing:
            return TyperCommand(name, short_help=SHORT_HELP[name], help=SHORT_HELP[name])
        if name not in self._built:
            function = getattr(importlib.import_module(f"posemb_cli.cli.commands.{name}"), name)
            single = typer.Typer(rich_markup_mode=app.rich_markup_mode, pretty_exceptions_enable=False,
                                 add_completion=False)
            single.command(name, short_help=SHORT_HELP[name])(function)
            command = typer.main.get_command(single)
            command.name = name
            self._built[name] = command  # type: ignore[assignment]
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(SHORT_HELP)

    def __len__(self) -> int:
        return len(SHORT_HELP)


class _PosembGroup(TyperGroup):
    """Runs the command outside Click's standalone mode so that every error is one line of ours; its commands are
    loaded as they are run (``_Commands``)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _Commands()  # type: ignore[assignment]

    def list_commands(self, ctx) -> list[str]:
        return list(SHORT_HELP)  # in the order the help lists them

    def format_help(self, ctx, formatter) -> None:
        commands = self.commands
        assert isinstance(commands, _Commands)
        commands.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            commands.listing = False

    def get_help_option(self, ctx):
        # Typer coerces a flag left unset (None) through pydantic, an import of ~60 ms on every
        # `posemb CMD --help`; an unset --help that reads False is a bool and skips it.
        option = super().get_help_option(ctx)
        if option is not None and option.default is None:
            option.default = False
        return option

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = list(sys.argv[1:] if args is None else args)
        debug = "--debug" in argv or os.environ.get("POSEMB_DEBUG") == "1"
        try:
            with warnings.catch_warnings():
                if not debug:  # a library's warning is never an extra stderr line; --debug shows them
                    warnings.simplefilter("ignore")
                result = super().main(args=argv, prog_name=prog_name or "posemb", complete_var=complete_var,
                                      standalone_mode=False, **extra)
                sys.stdout.flush()  # a full disk fails here, inside the try, not at exit
        except PosembError as exc:
            from posemb_cli.request.words import worded

            _fail(_one_line(worded(exc)), exc.exit_code)
        except typer.Exit as exc:
            sys.exit(exc.exit_code)
        except typer.Abort:
            _fail("aborted", 1)
        except KeyboardInterrupt:
            _interrupted()
        except BrokenPipeError:
            silence_stdout()  # the reader went away: nothing left to say
            sys.exit(1)
        except OSError as exc:
            if exc.errno not in OUTPUT_ERRNOS:
                _unexpected(exc, debug)
            silence_stdout()  # what is still buffered can never be written: drop it, say why once
            _fail(f"cannot write the output: {exc.strerror or exc}", 1)
        except Exception as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare `posemb`: the help, as --help prints it
                sys.stdout.write(exc.format_message().rstrip("\n") + "\n")
                sys.exit(0)
            if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # Click's usage errors
                from posemb_cli.cli.usage_errors import bad_parameter_line

                message = bad_parameter_line(exc, argv) or _usage_line(exc.format_message())
                if not message:  # no arguments at all: the help was printed
                    sys.exit(0)
                _fail(message, 2)
            _unexpected(exc, debug)
        if result == 130:  # Typer turns Ctrl-C into an exit status of 130 and returns it
            _interrupted()
        sys.exit(result if isinstance(result, int) else 0)


def _help_to_terminal() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _version(value: bool) -> None:
    if value:
        print(f"posemb {__version__}")
        raise typer.Exit()


app = typer.Typer(
    cls=_PosembGroup,
    name="posemb",
    help="See what a positional encoding actually does: shapes, parameters, similarity decay, bands.",
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Rich help, with its panels, for a person at a terminal; plain Click text for pipes and files (and the
    # ~50 ms import of Rich's help machinery is paid only where someone reads it).
    rich_markup_mode="rich" if _help_to_terminal() else None,
)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """See what a positional encoding actually does."""


# One line per command for `posemb --help`, whole at 80 columns (each command's own --help has its full text).
SHORT_HELP = {
    "compare": "Compare schemes, or real models and scalings, side by side.",
    "inspect": "Inspect one scheme, or a real model's position setup, in depth.",
    "order": "Show that attention without position cannot tell word order.",
    "bench": "Time the composer's forward pass against a same-size copy.",
    "sweep": "Inspect every combination of dims, contexts, bases and schemes.",
    "schema": "Print the JSON Schema of one JSON document that posemb prints.",
    "precision": "Show where positions collapse in a low-precision dtype.",
    "padding": "Show which schemes keep left-padded tokens' outputs unchanged.",
    "doctor": "Find mistakes in a model's position setup (exit 3 on an error).",
    "heads": "Show which RoPE frequencies a trained model's heads use.",
    "extend": "Pick the RoPE scaling to run a model past its trained length.",
}


def main() -> None:
    app()
