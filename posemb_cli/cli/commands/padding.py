"""`posemb padding`: one attention head on a batch and on the same batch left-padded, per position-id choice."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import run_progress, stdout_console, write_json
from posemb_cli.core.schemes import scheme_names
from posemb_cli.errors import PosembError
from posemb_cli.run.config import parse_scheme_list, require_positive_int


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.OUTPUT_FLAGS, skip=("max_offset",))
def padding(
    context: typer.Context,
    schemes: Annotated[str, typer.Option(
        "--schemes", help="Comma list of schemes to compare; none is NoPE.",
        rich_help_panel=opt.SHARED)] = "none,learned,sinusoidal,rope,alibi",
    pad: Annotated[int, typer.Option("--pad", help="Masked pad tokens put in front of every sequence.",
                                     rich_help_panel=opt.SHARED)] = 4,
    **flags: Any,
) -> None:
    """Show which schemes give left-padded tokens the same outputs, with naive and mask-derived position ids.

    \b
    Example: posemb padding --schemes learned,rope --pad 8 --seq-len 16
    """
    from posemb_cli.run.flags import config_from_flags
    from posemb_cli.run.padding import run_padding
    from posemb_cli.run.report import to_json

    flags = opt.plain(flags)
    names = parse_scheme_list("--schemes", schemes, scheme_names())
    require_positive_int("--pad", pad)
    require_positive_int("--ctx", flags["ctx"])
    if flags["ctx"] < 2:
        raise PosembError(f"--ctx {flags['ctx']} leaves no room for --pad {pad} pad tokens before a real one")
    config = config_from_flags({**flags, "max_offset": 1}, schemes=names)
    opt.refuse_unread(context, names)
    with run_progress("left padding") as progress:
        report = run_padding(config, names, pad, progress=progress)
    if flags["json"]:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.padding import render_padding

    stdout_console().print(render_padding(report))
