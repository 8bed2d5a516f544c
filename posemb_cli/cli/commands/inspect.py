"""`posemb inspect`: one scheme in depth."""

from __future__ import annotations

from typing import Annotated

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli import position_options as popt
from posemb_cli.cli.output import row_progress, stdout_console, write_json
from posemb_cli.core.schemes import scheme_names
from posemb_cli.errors import PosembError
from posemb_cli.run.config import make_config, shown


def inspect(
    context: typer.Context,
    scheme: Annotated[str, typer.Option("--scheme", help="The scheme to inspect.")] = "sinusoidal",
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
    model_config: opt.ModelConfig = None,
    no_plot: opt.NoPlot = False,
    plot: opt.Plot = None,
    json: opt.Json = False,
    debug: opt.Debug = False,
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
    from posemb_cli.run.position_config import with_position_settings
    from posemb_cli.run.report import to_json

    check_source_flags(checkpoint=checkpoint, key=key, position_offset=position_offset, model_config=model_config)
    check_plot_flag(plot)
    observe = picture_observer(terminal=not (json or no_plot), plot=plot)
    loaded = None
    if checkpoint is not None:
        from posemb_cli.run.real_models import checkpoint_shape
        from posemb_cli.sources.checkpoint import load_checkpoint

        loaded = load_checkpoint(checkpoint, key=key, position_offset=position_offset)
        shape = checkpoint_shape(loaded, vocab)
        refuse_conflicts(context, "--checkpoint", checkpoint, {"dim": shape["dim"], "ctx": shape["ctx"],
                                                               "vocab": shape["vocab"]})
        dim, ctx, vocab = shape["dim"], shape["ctx"], shape["vocab"]
        check_source_rows("--checkpoint", checkpoint, ctx, max_offset=max_offset, seq_len=seq_len)
    rope_model = None
    if model_config is not None:
        from posemb_cli.run.real_models import rope_model_shape
        from posemb_cli.sources.model_config import read_rope_config

        rope_model = read_rope_config(model_config)
        shape = rope_model_shape(rope_model, vocab)
        refuse_conflicts(context, "--config", model_config, {"dim": shape["dim"], "ctx": shape["ctx"],
                                                             "vocab": shape["vocab"], "scheme": "rope"})
        dim, ctx, vocab, scheme = shape["dim"], shape["ctx"], shape["vocab"], "rope"
        check_source_rows("--config", model_config, ctx, max_offset=max_offset, seq_len=seq_len)

    if scheme not in scheme_names():
        raise PosembError(f"--scheme: unknown scheme {shown(scheme)}; choose from {', '.join(scheme_names())}")
    config = make_config(dim=dim, ctx=ctx, vocab=vocab, batch=batch, seq_len=seq_len, seed=seed, device=device,
                         dtype=dtype, base=base, init_std=init_std, max_offset=max_offset, ids=ids)
    config = with_position_settings(
        config, schemes=(scheme,), head_dim=head_dim, rope_layout=rope_layout, rope_scaling=rope_scaling,
        rope_factor=rope_factor, original_ctx=original_ctx, beta_fast=beta_fast, beta_slow=beta_slow,
        low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor, attention_factor=attention_factor,
        heads=heads)
    with row_progress("neighbour similarity") as progress:
        if loaded is not None:
            from posemb_cli.run.real_models import inspect_checkpoint

            report = inspect_checkpoint(config, loaded, progress=progress, observe=observe)
        elif rope_model is not None:
            from posemb_cli.run.real_models import inspect_rope_config

            report = inspect_rope_config(config, rope_model, progress=progress, observe=observe)
        else:
            report = run_inspect(config, scheme, progress=progress, observe=observe)
    write_requested_plot(plot, report, f"posemb inspect {report.result.scheme}")
    if json:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.documents import render_inspect

    stdout_console().print(render_inspect(report))
