"""`posemb compare`: schemes side by side on one batch."""

from __future__ import annotations

from typing import Annotated

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli import position_options as popt
from posemb_cli.cli.output import row_progress, stdout_console, write_json
from posemb_cli.core.schemes import scheme_names
from posemb_cli.run.config import make_config, parse_scheme_list


def compare(
    context: typer.Context,
    schemes: Annotated[str, typer.Option("--schemes", help="Comma list of schemes to compare.")] = "learned,sinusoidal",
    dim: opt.Dim = 64,
    ctx: opt.Ctx = 512,
    vocab: opt.Vocab = 32000,
    batch: opt.Batch = 4,
    seq_len: opt.SeqLen = None,
    seed: opt.Seed = 0,
    device: opt.Device = "auto",
    dtype: opt.Dtype = "float32",
    base: opt.Base = 10000.0,
    init_std: opt.InitStd = 0.02,
    max_offset: opt.MaxOffset = 8,
    ids: opt.Ids = None,
    head_dim: popt.HeadDim = None,
    rope_layout: popt.RopeLayout = "interleaved",
    rope_scaling: popt.RopeScalingKind = "none",
    rope_factor: popt.RopeFactor = 1.0,
    original_ctx: popt.OriginalCtx = None,
    beta_fast: popt.BetaFast = 32.0,
    beta_slow: popt.BetaSlow = 1.0,
    low_freq_factor: popt.LowFreqFactor = 1.0,
    high_freq_factor: popt.HighFreqFactor = 4.0,
    attention_factor: popt.AttentionFactor = None,
    heads: popt.Heads = 8,
    checkpoint: opt.Checkpoint = None,
    key: opt.Key = None,
    position_offset: opt.PositionOffset = None,
    plot: opt.Plot = None,
    json: opt.Json = False,
    debug: opt.Debug = False,
) -> None:
    """Compare positional schemes side by side on one batch.

    \b
    Example: posemb compare --dim 64 --ctx 512 --schemes learned,sinusoidal
    Example: posemb compare --schemes sinusoidal,rope,alibi,none --rope-scaling yarn --rope-factor 4
    Example: posemb compare --checkpoint gpt2/ --schemes sinusoidal --plot gpt2.svg
    """
    from posemb_cli.cli.commands.real_inputs import (
        check_plot_flag,
        check_source_flags,
        check_source_rows,
        picture_observer,
        refuse_conflicts,
        write_requested_plot,
    )
    from posemb_cli.run.analysis import compare as run_compare
    from posemb_cli.run.position_config import with_position_settings
    from posemb_cli.run.report import to_json

    names = parse_scheme_list("--schemes", schemes, scheme_names())
    check_source_flags(checkpoint=checkpoint, key=key, position_offset=position_offset)
    check_plot_flag(plot)
    observe = picture_observer(terminal=False, plot=plot)
    loaded = None
    if checkpoint is not None:
        from posemb_cli.cli.commands.real_inputs import typed
        from posemb_cli.run.real_models import checkpoint_shape
        from posemb_cli.run.real_sources import table_of_checkpoint

        real = table_of_checkpoint(checkpoint, key=key, position_offset=position_offset, command="compare")
        loaded, vocab_typed = real.loaded, typed(context, "vocab")
        shape = checkpoint_shape(loaded, vocab)
        settled = {"dim": shape["dim"], "ctx": shape["ctx"], "vocab": shape["vocab"]}
        if loaded.vocab is None:
            del settled["vocab"]  # unknown token table: --vocab by hand still works
        refuse_conflicts(context, "--checkpoint", checkpoint, settled)
        dim, ctx, vocab = shape["dim"], shape["ctx"], shape["vocab"]
        check_source_rows("--checkpoint", checkpoint, ctx, max_offset=max_offset, seq_len=seq_len)
    config = make_config(dim=dim, ctx=ctx, vocab=vocab, batch=batch, seq_len=seq_len, seed=seed, device=device,
                         dtype=dtype, base=base, init_std=init_std, max_offset=max_offset, ids=ids)
    config = with_position_settings(
        config, schemes=names, head_dim=head_dim, rope_layout=rope_layout, rope_scaling=rope_scaling,
        rope_factor=rope_factor, original_ctx=original_ctx, beta_fast=beta_fast, beta_slow=beta_slow,
        low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor, attention_factor=attention_factor,
        heads=heads)
    with row_progress("neighbour similarity") as progress:
        if loaded is not None:
            from posemb_cli.run.real_models import compare_checkpoint

            report = compare_checkpoint(config, loaded, names, progress=progress, observe=observe, real=real,
                                        vocab_typed=vocab_typed)
        else:
            report = run_compare(config, names, progress=progress, observe=observe)
    write_requested_plot(plot, report, "posemb compare " + ", ".join(r.scheme for r in report.results))
    if json:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.documents import render_compare

    stdout_console().print(render_compare(report))
