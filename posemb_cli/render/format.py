"""Number formats, bars and the run header shared by every renderer; computes nothing new.

One vocabulary: counts (positions, rows, parameters) with thousands separators
(``count``), ratios as percentages for people (``percent``; JSON keeps the
ratio), measured figures to four significant digits (``general``), cosines to
four decimals (``number``).
"""

from __future__ import annotations

import math

from rich.padding import Padding
from rich.text import Text

from posemb_cli.core.wording import general, within_rounding

__all__ = ["BAR_WIDTH", "ROUNDING_NOTE", "bar", "count", "general", "header", "indented", "number", "percent",
           "sampled_positions", "shape", "within_rounding"]

ROUNDING_NOTE = ("<x: a figure zero by construction, within its dtype's rounding (1000 machine epsilons), whose "
                 "digits differ from machine to machine; --json gives them")

_EIGHTHS = " ▏▎▍▌▋▊▉█"
BAR_WIDTH = 20


def indented(text: str, style: str = "", *, by: int = 2) -> Padding:
    """A line indented by ``by`` spaces whose wrapped lines keep the indent (a plain Text wraps to column 0)."""
    return Padding(Text(text, style=style), (0, 0, 0, by), expand=False)


def number(value: float | None, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.{digits}f}"


def count(value: int) -> str:
    """A whole count (positions, rows, parameters) with thousands separators: 65,536."""
    return f"{int(value):,}"


def percent(ratio: float | None, digits: int = 2) -> str:
    """A ratio (as JSON keeps it) for people, as a percentage: 0.016 -> 1.60%."""
    if ratio is None or not math.isfinite(ratio):
        return "n/a"
    return f"{100 * ratio:.{digits}f}%"


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


def sampled_positions(coverage: dict | None) -> str | None:
    """"over N sampled positions of M" for a sampled pass (the ``coverage`` JSON object); None for every position."""
    if coverage is None or coverage["positions_measured"] >= coverage["of"]:
        return None
    return f"over {count(coverage['positions_measured'])} sampled positions of {count(coverage['of'])}"


def header(config: dict, title: str, *, model: dict | None = None) -> Text:
    """The run's settings in one line; for a real RoPE model D is named as one head's rotary features, apart from
    the model's width, and ctx as the distances analysed."""
    text = Text()
    text.append(f"posemb {title}", style="bold")
    vocab = config["vocab"] if config.get("model_vocab", 0) is not None else f"unknown (ids < {config['vocab']})"
    dim, ctx = f"D={count(config['dim'])}", f"ctx={count(config['ctx'])}"
    if model is not None and model.get("rope_sets"):
        width = f", model width {count(model['hidden_size'])}" if model.get("hidden_size") else ""
        dim = f"D={count(config['dim'])} (rotary features of one head{width})"
        ctx = f"distances<{count(config['ctx'])}"
    text.append(
        f"  {dim} {ctx} V={_count_or_text(vocab)} "
        f"B×T={count(config['batch'])}×{count(config['seq_len'])} {config['device']}/{config['dtype']} "
        f"seed={config['seed']}",
        style="dim",
    )
    return text


def _count_or_text(value) -> str:
    return count(value) if isinstance(value, int) else str(value)
