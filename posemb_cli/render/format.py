"""Number formats, bars and the run header shared by every renderer; computes nothing new."""

from __future__ import annotations

import math

from rich.text import Text

_EIGHTHS = " ▏▎▍▌▋▊▉█"
BAR_WIDTH = 20


def number(value: float | None, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.{digits}f}"


def general(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.4g}"


def shape(dims: list[int]) -> str:
    return "(" + ", ".join(str(d) for d in dims) + ")"


def bar(value: float | None, width: int = BAR_WIDTH) -> Text:
    """A horizontal bar for a cosine in [-1, 1]: length |value|, green when positive, red when negative."""
    if value is None or not math.isfinite(value):
        return Text("")
    eighths = round(min(abs(value), 1.0) * width * 8)
    full, part = divmod(eighths, 8)
    body = "█" * full + (_EIGHTHS[part] if part else "")
    return Text(body, style="green" if value >= 0 else "red")


def header(config: dict, title: str) -> Text:
    text = Text()
    text.append(f"posemb {title}", style="bold")
    vocab = config["vocab"] if config.get("model_vocab", 0) is not None else f"unknown (ids < {config['vocab']})"
    text.append(
        f"  D={config['dim']} ctx={config['ctx']} V={vocab} "
        f"B×T={config['batch']}×{config['seq_len']} {config['device']}/{config['dtype']} seed={config['seed']}",
        style="dim",
    )
    return text
