"""`posemb doctor`'s options: the MODEL (or its config and checkpoint) and the output format."""

from __future__ import annotations

from posemb_cli.request import groups
from posemb_cli.request.option import Option

OPTIONS = (
    groups.MODEL,
    Option("model_config", ("--config",), str | None, None, show_default=False, panel=groups.REAL_PANEL,
           help="A Hugging Face style config.json (or its directory)."),
    Option("checkpoint", ("--checkpoint",), str | None, None, show_default=False, panel=groups.REAL_PANEL,
           help="A model's weights (file or directory): its position table, checked against the config.json beside "
                "it."),
    Option("output_format", ("--format",), str, "text", choices=("text", "json", "github", "sarif"),
           panel=groups.OUTPUT_PANEL, cli_only=True,
           help="text: tables; json: as --json; github: GitHub Actions annotations on the config's lines; "
                "sarif: a SARIF 2.1.0 log (code scanning)."),
    *groups.OUTPUT,
)
