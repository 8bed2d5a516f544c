"""`posemb inspect`: one scheme in depth."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import options as opt
from ..config import PosembError, make_config
from ..output import row_progress, stdout_console, write_json
from ..schemes import scheme_names


def inspect(
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
    json: opt.Json = False,
    debug: opt.Debug = False,
) -> None:
    """Inspect one positional scheme in depth: shapes, parameters, decay, norms, bands.

    Example: posemb inspect --scheme sinusoidal --dim 32
    """
    from ..analysis import inspect as run_inspect
    from ..report import to_json

    if scheme not in scheme_names():
        raise PosembError(f"--scheme: unknown scheme {scheme!r}; choose from {', '.join(scheme_names())}")
    config = make_config(dim=dim, ctx=ctx, vocab=vocab, batch=batch, seq_len=seq_len, seed=seed, device=device,
                         dtype=dtype, base=base, init_std=init_std, max_offset=max_offset, ids=ids)
    with row_progress("neighbour similarity") as progress:
        report = run_inspect(config, scheme, progress=progress)
    if json:
        write_json(to_json(report.to_dict()))
        return
    from ..render import render_inspect

    stdout_console().print(render_inspect(report))
