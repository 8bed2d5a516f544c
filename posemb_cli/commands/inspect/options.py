"""`posemb inspect`'s options: a scheme or a real MODEL, then the shared groups."""

from __future__ import annotations

from posemb_cli.core.schemes import scheme_names
from posemb_cli.request import groups
from posemb_cli.request.option import Option

OPTIONS = (
    groups.MODEL,
    Option("scheme", ("--scheme",), str, "sinusoidal", choices=tuple(scheme_names()), panel=groups.SHARED_PANEL,
           help="The scheme to inspect."),
    *groups.SHARED, *groups.POSITION, *groups.CHECKPOINT, *groups.CONFIG, *groups.PICTURES, *groups.PLOT,
    *groups.COVERAGE, *groups.OUTPUT,
)
