"""The RoPE and ALiBi flags, as Annotated types shared by compare, inspect and order (no torch here).

Values are checked by ``position_config.with_position_settings``.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

_PANEL = "RoPE and ALiBi"

HeadDim = Annotated[Optional[int], typer.Option(
    "--head-dim", help="RoPE head size, even, dividing --dim  [default: --dim]", show_default=False,
    rich_help_panel=_PANEL)]
RopeLayout = Annotated[str, typer.Option(
    "--rope-layout", help="RoPE pairs: interleaved (2i, 2i+1; RoFormer) or half (i, i+d/2; GPT-NeoX, Llama).",
    rich_help_panel=_PANEL)]
RopeScalingKind = Annotated[str, typer.Option(
    "--rope-scaling", help="RoPE context extension: none, linear, ntk, dynamic, yarn or llama3.",
    rich_help_panel=_PANEL)]
RopeFactor = Annotated[float, typer.Option(
    "--rope-factor", help="Context extension factor, 1 or more.", rich_help_panel=_PANEL)]
OriginalCtx = Annotated[Optional[int], typer.Option(
    "--original-ctx", help="Training context before extension (dynamic, yarn, llama3), at most --ctx  "
    "[default: ctx / factor]", show_default=False, rich_help_panel=_PANEL)]
BetaFast = Annotated[float, typer.Option("--beta-fast", help="YaRN: rotations where the ramp starts.",
                                         rich_help_panel=_PANEL)]
BetaSlow = Annotated[float, typer.Option("--beta-slow", help="YaRN: rotations where the ramp ends.",
                                         rich_help_panel=_PANEL)]
LowFreqFactor = Annotated[float, typer.Option(
    "--low-freq-factor", help="Llama 3: wavelengths above original-ctx / this are divided by the factor.",
    rich_help_panel=_PANEL)]
HighFreqFactor = Annotated[float, typer.Option(
    "--high-freq-factor", help="Llama 3: wavelengths below original-ctx / this are kept.", rich_help_panel=_PANEL)]
AttentionFactor = Annotated[Optional[float], typer.Option(
    "--attention-factor", help="Multiplier of cos and sin  [default: YaRN 0.1 ln(factor) + 1, else 1]",
    show_default=False, rich_help_panel=_PANEL)]
Heads = Annotated[int, typer.Option("--heads", help="ALiBi heads, dividing --dim; one slope each.",
                                    rich_help_panel=_PANEL)]
