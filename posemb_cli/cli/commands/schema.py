"""`posemb schema`: print the JSON Schema of one document the tool prints (no torch)."""

from __future__ import annotations

from typing import Annotated

import typer

from posemb_cli.cli.output import write_json
from posemb_cli.errors import PosembError
from posemb_cli.schemas import SCHEMA_NAMES, schema_text

Name = Annotated[str, typer.Argument(
    metavar="NAME", help=f"The document: {', '.join(SCHEMA_NAMES)}.", show_default=False)]


def schema(name: Name) -> None:
    # The help text is the docstring set below, listing every document of SCHEMA_NAMES.
    if name not in SCHEMA_NAMES:
        raise PosembError(f"schema NAME: unknown document {name!r}; choose from {', '.join(SCHEMA_NAMES)}")
    write_json(schema_text(name).rstrip("\n"))


_DOCUMENTS = f"{', '.join(SCHEMA_NAMES[:-1])} or {SCHEMA_NAMES[-1]}"
schema.__doc__ = f"""Print the JSON Schema (draft 2020-12) of one JSON document: {_DOCUMENTS}.

    \b
    Example: posemb schema inspect > inspect.schema.json
    """
