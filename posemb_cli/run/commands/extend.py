"""`extend`: which RoPE scaling, which factor, for a model at a target length."""

from __future__ import annotations

import math

from posemb_cli.errors import PosembError
from posemb_cli.run.commands import Flags
from posemb_cli.run.extend_report import ExtendReport
from posemb_cli.run.progress import Progress
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT

MAX_TOP = 1000
MAX_FACTOR = 2.0**20

__all__ = ["MAX_TOP", "extend_command", "parse_scalings"]


def parse_scalings(text: str) -> list[str]:
    """A comma list of the candidate scalings, each once."""
    from posemb_cli.measures.extension_ranking import SCALINGS

    names = [part.strip() for part in text.split(",")]
    unknown = [name for name in names if name not in SCALINGS]
    if unknown:
        raise PosembError(f"--scalings: unknown scaling {unknown[0]!r}; choose from {', '.join(SCALINGS)}")
    if len(set(names)) != len(names):
        raise PosembError(f"--scalings: each scaling may be given once, got {text!r}")
    return names


def _whole(name: str, value, low: int, high: int, high_text: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PosembError(f"--{name} must be a whole number from {low:,} to {high_text}, got {value!r}")
    return value


def extend_command(flags: Flags, *, progress: Progress | None = None) -> ExtendReport:
    from posemb_cli.run.extend import run_extend

    to = _whole("to", flags["to"], 2, MAX_COUNT, MAX_COUNT_TEXT)
    top = _whole("top", flags["top"], 1, MAX_TOP, f"{MAX_TOP:,}")
    given = flags["scalings"]
    if isinstance(given, (list, tuple)):
        given = ",".join(str(name) for name in given)
    scalings = None if given is None else parse_scalings(given)
    factor = flags["factor"]
    if factor is not None:
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not math.isfinite(factor) \
                or not 1 <= factor <= MAX_FACTOR:
            raise PosembError(f"--factor must be a number from 1 (no stretch) to 2**20, got {factor!r}")
        if scalings == ["none"]:
            raise PosembError("--factor is read by no chosen scaling: none keeps the published frequencies; add "
                              "another scaling to --scalings or leave --factor out")
        factor = float(factor)
    return run_extend(flags["model"], to=to, scalings=scalings, factor=factor, top=top, progress=progress)
