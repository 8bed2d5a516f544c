"""`posemb bench`'s options: the schemes and dims to time, the batch, the repeats, then the shared settings."""

from __future__ import annotations

from posemb_cli.request import groups
from posemb_cli.request.option import Option, without

OPTIONS = (
    Option("schemes", ("--schemes",), str, "learned,sinusoidal", panel=groups.SHARED_PANEL, items=str,
           help="Comma list of schemes to time."),
    Option("dim", ("--dim", "-d"), str, "1024", panel=groups.SHARED_PANEL, items=int,
           help="Comma list of model dimensions D to time."),
    Option("ctx", ("--ctx", "-c"), int, 2048, panel=groups.SHARED_PANEL,
           help="Max context length L: rows of a positional table."),
    Option("batch", ("--batch", "-b"), int, 8, panel=groups.SHARED_PANEL, help="Batch size B of the random batch."),
    Option("seq_len", ("--seq-len", "-t"), int | None, None, show_default=False,
           help="Sequence length T of the random batch; default: ctx."),
    Option("repeats", ("--repeats",), int, 20, help="Timed calls per scheme and dim; the median is reported."),
    Option("warmup", ("--warmup",), int, 3, help="Untimed calls first (allocator, caches)."),
    *without(groups.SHARED, "dim", "ctx", "batch", "seq_len", "max_offset", "ids"), *groups.OUTPUT,
)
