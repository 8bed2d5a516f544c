"""`posemb compare`: schemes side by side on one batch."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.commands import real_inputs as inputs
from posemb_cli.cli.output import run_progress, stdout_console, write_json
from posemb_cli.core.schemes import scheme_names
from posemb_cli.run.config import parse_scheme_list


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.PLOT_FLAGS, opt.COVERAGE_FLAGS,
           opt.OUTPUT_FLAGS)
def compare(
    context: typer.Context,
    schemes: Annotated[str, typer.Option("--schemes", help="Comma list of schemes to compare.",
                                         rich_help_panel=opt.SHARED)] = "learned,sinusoidal",
    **flags: Any,
) -> None:
    """Compare positional schemes side by side on one batch.

    \b
    Example: posemb compare --dim 64 --ctx 512 --schemes learned,sinusoidal
    Example: posemb compare --schemes sinusoidal,rope,alibi,none --rope-scaling yarn --rope-factor 4
    Example: posemb compare --checkpoint gpt2/ --schemes sinusoidal --plot gpt2.svg
    """
    with run_progress("loading torch") as progress:
        from posemb_cli.run.analysis import compare as run_compare
        from posemb_cli.run.flags import config_from_flags
        from posemb_cli.run.report import to_json

        flags = opt.plain(flags)
        checkpoint, key, plot = flags["checkpoint"], flags["key"], flags["plot"]
        position_offset = flags["position_offset"]
        names = parse_scheme_list("--schemes", schemes, scheme_names())
        inputs.check_source_flags(checkpoint=checkpoint, key=key, position_offset=position_offset)
        inputs.check_plot_flag(plot)
        observe = inputs.picture_observer(terminal=False, plot=plot)
        loaded = None
        if checkpoint is not None:
            from posemb_cli.run.real_models import checkpoint_shape
            from posemb_cli.run.real_sources import table_of_checkpoint

            real = table_of_checkpoint(checkpoint, key=key, position_offset=position_offset, command="compare")
            loaded, vocab_typed = real.loaded, inputs.typed(context, "vocab")
            assert loaded is not None  # table_of_checkpoint refuses every kind without a table
            shape = checkpoint_shape(loaded, flags["vocab"])
            settled = {"dim": shape["dim"], "ctx": shape["ctx"], "vocab": shape["vocab"]}
            if loaded.vocab is None:
                del settled["vocab"]  # unknown token table: --vocab by hand still works
            inputs.refuse_conflicts(context, "--checkpoint", checkpoint, settled)
            flags.update(settled)
            inputs.check_source_rows("--checkpoint", checkpoint, shape["ctx"], max_offset=flags["max_offset"],
                              seq_len=flags["seq_len"])
        config = config_from_flags(flags, schemes=names)
        opt.refuse_unread(context, names)
        if loaded is not None:
            from posemb_cli.run.real_models import compare_checkpoint

            report = compare_checkpoint(config, loaded, names, progress=progress, observe=observe, real=real,
                                        vocab_typed=vocab_typed)
        else:
            report = run_compare(config, names, progress=progress, observe=observe)
    inputs.write_requested_plot(plot, report, "posemb compare " + ", ".join(r.scheme for r in report.results))
    if flags["json"]:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.documents import render_compare

    stdout_console().print(render_compare(report))
