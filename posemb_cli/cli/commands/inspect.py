"""`posemb inspect`: one scheme in depth."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands import real_inputs as inputs
from posemb_cli.cli.output import run_progress, stderr_console, stdout_console, write_json

if TYPE_CHECKING:
    from posemb_cli.run.real_sources import RealModel


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.CONFIG_FLAGS, opt.PICTURE_FLAGS,
           opt.PLOT_FLAGS, opt.COVERAGE_FLAGS, opt.OUTPUT_FLAGS)
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
    with run_progress("loading torch") as progress:
        from posemb_cli.run.analysis import inspect as run_inspect
        from posemb_cli.run.flags import config_from_flags
        from posemb_cli.run.report import to_json

        flags = opt.plain(flags)
        name = opt.plain({"scheme": scheme})["scheme"]
        checkpoint, key, position_offset = flags["checkpoint"], flags["key"], flags["position_offset"]
        model_config, plot = flags["model_config"], flags["plot"]
        inputs.check_source_flags(checkpoint=checkpoint, key=key, position_offset=position_offset,
                           model_config=model_config)
        inputs.check_plot_flag(plot)
        observe = inputs.picture_observer(terminal=not (flags["json"] or flags["no_plot"]), plot=plot,
                                   full=flags["pictures"] == "full")
        real: RealModel | None = None
        vocab_typed = False
        if checkpoint is not None or model_config is not None:
            from posemb_cli.run.real_models import real_model_shape
            from posemb_cli.run.real_sources import open_real_model

            real = open_real_model(checkpoint=checkpoint, model_config=model_config, key=key,
                                   position_offset=position_offset)
            assert real is not None  # one of the two was given
            flag, source = ("--checkpoint", checkpoint) if checkpoint is not None else ("--config", model_config)
            vocab_typed = inputs.typed(context, "vocab")
            shape = real_model_shape(real, flags["vocab"], vocab_typed=vocab_typed, ctx=flags["ctx"])
            settled = {"dim": shape["dim"], "ctx": shape["ctx"], "vocab": shape["vocab"]}
            if shape["scheme"] is not None:
                settled["scheme"] = name = shape["scheme"]
            if real.formula is not None and real.formula.heads is not None:
                settled["heads"] = real.formula.heads
            if real.bias is not None:
                settled["heads"] = real.bias.heads
            if (real.formula is not None and real.formula.ctx is None) or real.bias is not None:
                del settled["ctx"]  # the model states none: --ctx is the user's to give
            if real.vocab is None:
                del settled["vocab"]  # unknown token table: --vocab by hand still works
            inputs.refuse_conflicts(context, flag, source, settled)
            flags.update({key: value for key, value in settled.items() if key != "scheme"})
            inputs.check_source_rows(flag, source, flags["ctx"], max_offset=flags["max_offset"],
                                     seq_len=flags["seq_len"])
            for note in real.notes:
                stderr_console().print(note, markup=False, highlight=False, soft_wrap=True)
        config = config_from_flags(flags, schemes=(name,))
        opt.refuse_unread(context, (name,))
        if real is not None:
            from posemb_cli.run.real_models import inspect_real_model

            report = inspect_real_model(config, real, vocab_typed=vocab_typed, progress=progress, observe=observe)
        else:
            report = run_inspect(config, name, progress=progress, observe=observe)
    inputs.write_requested_plot(plot, report, f"posemb inspect {report.result.scheme}")
    if flags["json"]:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.documents import render_inspect

    stdout_console().print(render_inspect(report))
