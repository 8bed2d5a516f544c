"""`posemb inspect`: one scheme in depth."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import row_progress, stdout_console, write_json


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.CONFIG_FLAGS, opt.PICTURE_FLAGS,
           opt.PLOT_FLAGS, opt.OUTPUT_FLAGS)
def inspect(
    context: typer.Context,
    scheme: Annotated[opt.SchemeName, typer.Option("--scheme", help="The scheme to inspect.",
                                                   rich_help_panel=opt.SHARED)] = opt.SchemeName("sinusoidal"),
    **flags: Any,
) -> None:
    """Inspect one positional scheme in depth: shapes, parameters, decay, norms, bands, pictures.

    \b
    Example: posemb inspect --scheme sinusoidal --dim 32
    Example: posemb inspect --scheme rope --rope-layout half --rope-scaling llama3 --rope-factor 8
    Example: posemb inspect --checkpoint gpt2/model.safetensors --plot gpt2.png
    Example: posemb inspect --config Llama-3.1-8B/config.json
    """
    from posemb_cli.cli.commands.real_inputs import (
        check_plot_flag,
        check_source_flags,
        check_source_rows,
        picture_observer,
        refuse_conflicts,
        write_requested_plot,
    )
    from posemb_cli.run.analysis import inspect as run_inspect
    from posemb_cli.run.flags import config_from_flags
    from posemb_cli.run.report import to_json

    flags = opt.plain(flags)
    name = opt.plain({"scheme": scheme})["scheme"]
    checkpoint, key, position_offset = flags["checkpoint"], flags["key"], flags["position_offset"]
    model_config, plot = flags["model_config"], flags["plot"]
    check_source_flags(checkpoint=checkpoint, key=key, position_offset=position_offset, model_config=model_config)
    check_plot_flag(plot)
    observe = picture_observer(terminal=not (flags["json"] or flags["no_plot"]), plot=plot)
    loaded = None
    if checkpoint is not None:
        from posemb_cli.run.real_models import checkpoint_shape
        from posemb_cli.sources.checkpoint import load_checkpoint

        loaded = load_checkpoint(checkpoint, key=key, position_offset=position_offset)
        shape = checkpoint_shape(loaded, flags["vocab"])
        refuse_conflicts(context, "--checkpoint", checkpoint, shape)
        flags.update(shape)
        check_source_rows("--checkpoint", checkpoint, shape["ctx"], max_offset=flags["max_offset"],
                          seq_len=flags["seq_len"])
    rope_model = None
    if model_config is not None:
        from posemb_cli.run.real_models import rope_model_shape
        from posemb_cli.sources.model_config import read_rope_config

        rope_model = read_rope_config(model_config)
        shape = rope_model_shape(rope_model, flags["vocab"])
        refuse_conflicts(context, "--config", model_config, {**shape, "scheme": "rope"})
        flags.update(shape)
        name = "rope"
        check_source_rows("--config", model_config, shape["ctx"], max_offset=flags["max_offset"],
                          seq_len=flags["seq_len"])
    config = config_from_flags(flags, schemes=(name,))
    with row_progress("neighbour similarity") as progress:
        if loaded is not None:
            from posemb_cli.run.real_models import inspect_checkpoint

            report = inspect_checkpoint(config, loaded, progress=progress, observe=observe)
        elif rope_model is not None:
            from posemb_cli.run.real_models import inspect_rope_config

            report = inspect_rope_config(config, rope_model, progress=progress, observe=observe)
        else:
            report = run_inspect(config, name, progress=progress, observe=observe)
    write_requested_plot(plot, report, f"posemb inspect {report.result.scheme}")
    if flags["json"]:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.documents import render_inspect

    stdout_console().print(render_inspect(report))
