"""`posemb precision`'s options: the scheme and dtypes, the positions measured, and the settings they read."""

from __future__ import annotations

from posemb_cli.request import groups
from posemb_cli.request.option import Option, without

OPTIONS = (
    groups.MODEL,
    Option("scheme", ("--scheme",), str, "rope", panel=groups.SHARED_PANEL, help="rope or sinusoidal."),
    Option("dtypes", ("--dtypes",), str, "float32,bfloat16,float16", panel=groups.SHARED_PANEL, items=str,
           help="Comma list of dtypes to measure."),
    Option("ctx", ("--ctx", "-c"), int, 8192, panel=groups.SHARED_PANEL, help="Positions measured: every p below ctx."),
    *without(groups.SHARED, "ctx", "vocab", "batch", "seq_len", "seed", "device", "dtype", "init_std", "max_offset",
             "ids"),
    *without(groups.POSITION, "rope_layout", "attention_factor", "heads"),
    *without(groups.CHECKPOINT, "key", "position_offset"),
    *groups.CONFIG, *groups.OUTPUT,
)
