"""`posemb doctor`: lint a model's position setup (config.json, or a checkpoint and the config beside it).

Output: tables (``text``), the JSON document (``json``; ``--json`` is the same), or for CI
GitHub Actions annotations (``github``) or a SARIF 2.1.0 log (``sarif``). ``--json`` with
another ``--format`` asks for two outputs and is refused. The exit status is the same in
every format: 3 when a finding is an error.
"""

from __future__ import annotations

import json
from typing import Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import emit, run_progress, write_json
from posemb_cli.commands.doctor.options import OPTIONS
from posemb_cli.errors import EXIT_DOCTOR_ERROR, PosembError


@opt.built_from(OPTIONS)
def doctor(context: typer.Context, **flags: Any) -> None:
    """Find mistakes in a model's position setup; exit 3 when one is an error.

    \b
    Example: posemb doctor Llama-3.1-8B/config.json
    Example: posemb doctor gpt2/ --json
    Example: posemb doctor config.json --format github   (GitHub Actions)
    """
    chosen_format = opt.plain(flags).pop("output_format")
    if flags["json"] and opt.typed(context, "output_format") and chosen_format != "json":
        raise PosembError(f"--json and --format {chosen_format} ask for two outputs; give one "
                          "(--json is --format json)")
    from posemb_cli.commands.doctor.request import doctor_request
    from posemb_cli.commands.doctor.run import doctor_command

    chosen = opt.command_flags(context, {name: value for name, value in flags.items() if name != "output_format"})
    with run_progress("checking the position setup"):
        report = doctor_command(doctor_request(chosen))
    if chosen_format == "github":
        from posemb_cli.commands.doctor.render import github_annotations

        lines = github_annotations(report)
        if lines:  # no findings, no line
            write_json(lines.rstrip("\n"))
    elif chosen_format == "sarif":
        from posemb_cli import __version__
        from posemb_cli.commands.doctor.render import sarif_log

        write_json(json.dumps(sarif_log(report, version=__version__), indent=2, allow_nan=False))
    else:
        emit(report, chosen["json"] or chosen_format == "json", view=_view)
    if report.has_error:
        raise typer.Exit(EXIT_DOCTOR_ERROR)


def _view(report):
    """What people see of the report: its renderer, loaded when it is drawn."""
    from posemb_cli.commands.doctor.render import render_doctor

    return render_doctor(report)
