"""`posemb padding`: one attention head on a batch and on the same batch left-padded, per position-id choice."""

from __future__ import annotations

from typing import Annotated

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli import position_options as popt
from posemb_cli.cli.output import stdout_console, write_json
from posemb_cli.core.schemes import scheme_names
from posemb_cli.errors import PosembError
from posemb_cli.run.config import make_config, parse_scheme_list, require_positive_int


def padding(
    schemes: Annotated[str, typer.Option(
        "--schemes", help="Comma list of schemes to compare; none is NoPE.")] = "none,learned,sinusoidal,rope,alibi",
    pad: Annotated[int, typer.Option("--pad", help="Masked pad tokens put in front of every sequence.")] = 4,
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
    json: opt.Json = False,
    debug: opt.Debug = False,
) -> None:
    """Show which schemes give left-padded tokens the same outputs, with naive and mask-derived position ids.

    \b
    Example: posemb padding --schemes learned,rope --pad 8 --seq-len 16
    """
    from posemb_cli.run.padding import run_padding
    from posemb_cli.run.position_config import with_position_settings
    from posemb_cli.run.report import to_json

    names = parse_scheme_list("--schemes", schemes, scheme_names())
    require_positive_int("--pad", pad)
    require_positive_int("--ctx", ctx)
    if ctx < 2:
        raise PosembError(f"--ctx {ctx} leaves no room for --pad {pad} pad tokens before a real one")
    config = make_config(dim=dim, ctx=ctx, vocab=vocab, batch=batch, seq_len=seq_len, seed=seed, device=device,
                         dtype=dtype, base=base, init_std=init_std, max_offset=1, ids=ids)
    config = with_position_settings(
        config, schemes=names, head_dim=head_dim, rope_layout=rope_layout, rope_scaling=rope_scaling,
        rope_factor=rope_factor, original_ctx=original_ctx, beta_fast=beta_fast, beta_slow=beta_slow,
        low_freq_factor=low_freq_factor, high_freq_factor=high_freq_factor, attention_factor=attention_factor,
        heads=heads)
    report = run_padding(config, names, pad)
    if json:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.padding import render_padding

    stdout_console().print(render_padding(report))
