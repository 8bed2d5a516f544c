"""`posemb padding`: one attention head on a batch and on the same batch left-padded, per position-id choice."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import run_progress, stdout_console, write_json
from posemb_cli.core.schemes import scheme_names
from posemb_cli.errors import PosembError
from posemb_cli.run.config import parse_scheme_list, require_positive_int


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.CONFIG_FLAGS, opt.OUTPUT_FLAGS,
           skip=("max_offset",))
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
    Example: posemb padding --config Llama-3.1-8B/config.json --pad 64
    """
    from posemb_cli.run.flags import config_from_flags
    from posemb_cli.run.padding import run_padding
    from posemb_cli.run.report import to_json

    flags = opt.plain(flags)
    names = parse_scheme_list("--schemes", schemes, scheme_names())
    require_positive_int("--pad", pad)
    real = _real_model(context, flags)
    if real is not None:
        flags, settled = _settled(context, real, flags)
        names = (settled,) if settled else names
    require_positive_int("--ctx", flags["ctx"])
    if flags["ctx"] < 2:
        raise PosembError(f"--ctx {flags['ctx']} leaves no room for --pad {pad} pad tokens before a real one")
    config = config_from_flags({**flags, "max_offset": 1}, schemes=names)
    opt.refuse_unread(context, names)
    with run_progress("left padding") as progress:
        if real is not None:
            from posemb_cli.run.real_padding import padding_real_model

            report = padding_real_model(config, real, pad, progress=progress)
        else:
            report = run_padding(config, names, pad, progress=progress)
    if flags["json"]:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.padding import render_padding

    stdout_console().print(render_padding(report))


def _real_model(context: typer.Context, flags: dict):
    """The model named by --checkpoint or --config (its own signal replaces --schemes), or None."""
    from posemb_cli.cli.commands import real_inputs as inputs

    checkpoint, model_config = flags["checkpoint"], flags["model_config"]
    inputs.check_source_flags(checkpoint=checkpoint, key=flags["key"], position_offset=flags["position_offset"],
                              model_config=model_config)
    if checkpoint is None and model_config is None:
        return None
    if inputs.typed(context, "schemes"):
        raise PosembError(f"--schemes: {'--checkpoint' if checkpoint else '--config'} runs the model's own position "
                          "signal; leave --schemes out")
    from posemb_cli.run.real_sources import open_real_model

    return open_real_model(checkpoint=checkpoint, model_config=model_config, key=flags["key"],
                           position_offset=flags["position_offset"])


def _settled(context: typer.Context, real, flags: dict) -> tuple[dict, str | None]:
    from posemb_cli.cli.commands import real_inputs as inputs
    from posemb_cli.run.real_models import CHECKPOINT_SCHEME
    from posemb_cli.run.real_settings import settle_real_model

    settled, scheme = settle_real_model(real, {**flags, "max_offset": 1}, inputs.typed_flags(context))
    return settled, scheme or (CHECKPOINT_SCHEME if real.loaded is not None else None)
