"""Regenerate posemb_cli/api_flags.py, the Python API's keyword types, from each command's one declaration of options.

    python docs/generate_api_flags.py           rewrite posemb_cli/api_flags.py
    python docs/generate_api_flags.py --check   exit 1 where the file differs from what the options give

Each command's options live once, in ``posemb_cli/commands/<name>/options.py``; the CLI builds its
parameters from them and the API checks its keywords with them at run time. Type checkers and
editors need the keywords as a static ``TypedDict``, and this script writes them from the same data
(tests/test_api_options.py fails when the file is stale), so no option is declared twice by hand.
"""

from __future__ import annotations

import re
import sys
from importlib import import_module
from pathlib import Path
from typing import Any, get_args

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "posemb_cli" / "api_flags.py"
# The commands of the Python API, in the order of api.py, and what each takes as its arguments rather than as
# keywords (doctor and heads: their MODEL, heads reading --checkpoint as the same model; extend: MODEL and --to).
COMMANDS = ("inspect", "compare", "order", "padding", "precision", "doctor", "heads", "extend")
POSITIONAL = {"doctor": ("model",), "heads": ("model", "checkpoint"), "extend": ("model", "to")}
WIDTH = 120

HEADER = '''"""The keyword arguments of the Python API, one TypedDict per command: the command's options, by the
API's names. Written by docs/generate_api_flags.py from ``posemb_cli/commands/<name>/options.py``; do not edit.

Every key is optional: one left out takes the command's own default, as on the command line
(``posemb CMD --help`` shows it). Choices are strings (``dtype="bfloat16"``); a comma list may be
given as a list or as the command line's comma string. The CLI's own options (``--json``) are left out.
"""

from __future__ import annotations

from typing import TypedDict

'''


def _name(kind: Any) -> str:
    return kind.__name__ if isinstance(kind, type) else str(kind)


def annotation(option: Any) -> str:
    """The keyword's type: the option's, a comma list also as a list of its items, None where it is a value."""
    if option.is_list:
        item = get_args(option.base)[0]
        parts = [_name(item), f"list[{_name(item)}]"]
    elif option.items is not None:
        parts = [_name(option.base), f"list[{_name(option.items)}]"]
    else:
        parts = [_name(option.base)]
    return " | ".join(parts + (["None"] if option.optional else []))


def _comment(line: str, help_text: str) -> str:
    """The help's first sentence after the key, cut to the line's width."""
    first = re.split(r"(?<=[a-z0-9)'])\. (?=[A-Z])", " ".join(help_text.split()))[0].rstrip(".")
    room = WIDTH - len(line) - 4
    if not first or room < 12:
        return line
    return f"{line}  # {first if len(first) <= room else first[:room - 3].rstrip(' ,;:') + '...'}"


def typed_dict(command: str) -> str:
    from posemb_cli.request.option import api_options

    options = api_options(import_module(f"posemb_cli.commands.{command}.options").OPTIONS)
    lines = [f"class {command.capitalize()}Flags(TypedDict, total=False):",
             f'    """``posemb {command}``\'s options (``posemb {command} --help``)."""', ""]
    for name, option in options.items():
        if name not in POSITIONAL.get(command, ()):
            lines.append(_comment(f"    {name}: {annotation(option)}", option.help))
    return "\n".join(lines) + "\n"


def render() -> str:
    names = ", ".join(f'"{command.capitalize()}Flags"' for command in sorted(COMMANDS))
    exported = f"__all__ = [{names}]"
    if len(exported) > WIDTH:
        cut = exported.rindex(", ", 0, WIDTH) + 1
        exported = exported[:cut] + "\n          " + exported[cut + 1:]
    return HEADER + exported + "\n\n\n" + "\n\n".join(typed_dict(command) for command in COMMANDS)


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    text = render()
    if "--check" in argv:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run python docs/generate_api_flags.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
