"""`posemb compare`: schemes side by side on one batch."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import options as opt
from ..config import make_config, parse_scheme_list
from ..output import row_progress, stdout_console, write_json
from ..schemes import scheme_names


def compare(
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
    json: opt.Json = False,
    debug: opt.Debug = False,
) -> None:
    """Compare positional schemes side by side on one batch.

    Example: posemb compare --dim 64 --ctx 512 --schemes learned,sinusoidal
    """
    from ..analysis import compare as run_compare
    from ..report import to_json

    names = parse_scheme_list("--schemes", schemes, scheme_names())
    config = make_config(dim=dim, ctx=ctx, vocab=vocab, batch=batch, seq_len=seq_len, seed=seed, device=device,
                         dtype=dtype, base=base, init_std=init_std, max_offset=max_offset, ids=ids)
    with row_progress("neighbour similarity") as progress:
        report = run_compare(config, names, progress=progress)
    if json:
        write_json(to_json(report.to_dict()))
        return
    from ..render import render_compare

    stdout_console().print(render_compare(report))
