"""One RoPE set's pairs as strips, one row per candidate, each cell coloured by the pair's class: YaRN leaving the
high frequencies alone where linear squeezes them shows at a glance. Computes nothing new.

Glyphs (and colours): ``·`` unchanged, ``▒`` compressed, ``+`` sped up (turning faster than trained), ``█``
extrapolated. Where the width holds fewer cells than pairs, a cell stands for consecutive pairs and shows the worst
class among them (extrapolated, then sped up, then compressed).
"""

from __future__ import annotations

import math

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from posemb_cli.commands.extend.report import ExtendSet

GLYPHS = {"unchanged": "·", "compressed": "▒", "sped_up": "+", "extrapolated": "█"}
STYLES = {"unchanged": "green", "compressed": "yellow", "sped_up": "magenta", "extrapolated": "bold red"}
_WORST = ("unchanged", "compressed", "sped_up", "extrapolated")
_LABEL = 11  # "  longrope " and the like: two spaces, the name in 8, a space

__all__ = ["GLYPHS", "PairStrips", "legend"]


def legend(shown: set[str] | None = None) -> Text:
    """The glyphs of the classes ``shown`` (default: every class but sped up, which few candidates have)."""
    text = Text("  ")
    for name in _WORST:
        if (name not in shown) if shown is not None else name == "sped_up":
            continue
        text.append(GLYPHS[name], style=STYLES[name])
        text.append(f" {name}  ", style="dim")
    return text


def _note(counts: dict[str, int], mean: float) -> str:
    extrapolated, compressed = counts["extrapolated"], counts["compressed"]
    note = f"{extrapolated} extrap., {compressed} compr."
    note += f" ×{mean:.3g}" if compressed and math.isfinite(mean) else ""
    return note + (f", {counts['sped_up']} faster" if counts.get("sped_up") else "")


class PairStrips:
    """The set's candidates, one strip each; the note (counts, mean compression) beside it where it fits."""

    def __init__(self, one: ExtendSet) -> None:
        self.one = one

    def _cells(self, classes: list[str], width: int) -> tuple[list[str], int]:
        step = max(1, math.ceil(len(classes) / max(width, 1)))
        cells = [max(classes[i:i + step], key=_WORST.index) for i in range(0, len(classes), step)]
        return cells, step

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        pairs = self.one.rotary_pairs
        notes = [_note(found.counts, found.mean_compression) for found in self.one.candidates]
        note_width = max((len(note) for note in notes), default=0) + 2
        beside = width - _LABEL - note_width >= min(pairs, 16)
        room = width - _LABEL - (note_width if beside else 0)
        step = max(1, math.ceil(pairs / max(room, 1)))
        yield Text(f"  pairs 0 to {pairs - 1} left to right" + (f", {step} pairs a cell (the worst class shown)"
                                                                 if step > 1 else ""), style="dim")
        for found, note in zip(self.one.candidates, notes, strict=True):
            cells, _ = self._cells([pair.cls for pair in found.pairs], room)
            line = Text(f"  {found.scaling:<{_LABEL - 3}} ", no_wrap=True)
            for name in cells:
                line.append(GLYPHS[name], style=STYLES[name])
            if beside:
                line.append("  " + note, style="dim")
                yield line
            else:
                yield line
                yield Text(f"  {'':<{_LABEL - 3}} {note}", style="dim")
        faster = any(found.counts.get("sped_up") for found in self.one.candidates)
        yield legend({"unchanged", "compressed", "extrapolated", *(("sped_up",) if faster else ())})
