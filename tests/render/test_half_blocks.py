"""The heatmap in half blocks: each character's foreground is the upper cell, its background the lower,
coloured by a diverging palette (grey at 0, the extremes at ±1) recomputed here; ASCII without colour."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from posemb_cli.measures.heatmap import Heatmap
from posemb_cli.render.pictures import heatmap_cells_for_screen, heatmap_picture
from rich.console import Console

_SGR = re.compile(r"\x1b\[([0-9;]*)m([^\x1b]*)")
GREY, RED, BLUE = np.array([221, 221, 221]), np.array([180, 4, 38]), np.array([59, 76, 192])


def palette(value: float) -> tuple[int, int, int]:
    """Linear from grey at 0 to red at +1 or blue at -1 (the oracle)."""
    end = RED if value >= 0 else BLUE
    t = min(abs(value), 1.0)
    return tuple(int(x) for x in np.round(GREY + (end - GREY) * t))


def true_colour(text_width: int = 100) -> Console:
    return Console(file=io.StringIO(), width=text_width, color_system="truecolor", force_terminal=True,
                   legacy_windows=False)


def glyph_colours(line: str) -> list[tuple[str, tuple, tuple]]:
    """(glyph, foreground rgb, background rgb) of every ▀ on one rendered line."""
    found = []
    for codes, text in _SGR.findall(line):
        numbers = [int(x) for x in codes.split(";") if x]
        fg = bg = None
        i = 0
        while i < len(numbers):  # SGR parameters in order: 38;2;r;g;b and 48;2;r;g;b take five
            if numbers[i] in (38, 48) and i + 4 < len(numbers) and numbers[i + 1] == 2:
                if numbers[i] == 38:
                    fg = tuple(numbers[i + 2:i + 5])
                else:
                    bg = tuple(numbers[i + 2:i + 5])
                i += 5
            else:
                i += 1
        found += [(char, fg, bg) for char in text if char == "▀"]
    return found


def test_each_character_holds_the_upper_cell_in_front_and_the_lower_behind():
    rng = np.random.default_rng(0)
    cells = rng.uniform(-1, 1, size=(6, 6))
    np.fill_diagonal(cells, 1.0)
    console = true_colour()
    console.print(heatmap_picture(Heatmap(cells=cells, edges=np.arange(0, 7) * 10), "test"))
    lines = console.file.getvalue().splitlines()
    body = lines[1:4]  # 6 rows of cells in 3 lines
    for index, line in enumerate(body):
        glyphs = glyph_colours(line)
        assert len(glyphs) == 6
        for j, (_, fg, bg) in enumerate(glyphs):
            assert fg == palette(cells[2 * index, j])
            assert bg == palette(cells[2 * index + 1, j])


def test_the_cos_one_diagonal_is_the_palette_extreme_not_darker_than_its_neighbours():
    cells = np.full((4, 4), 0.9)
    np.fill_diagonal(cells, 1.0)
    console = true_colour()
    console.print(heatmap_picture(Heatmap(cells=cells, edges=np.arange(5)), "test"))
    first = glyph_colours(console.file.getvalue().splitlines()[1])
    assert first[0][1] == tuple(RED)  # cos = 1: the extreme of the palette
    assert first[1][1] == palette(0.9)
    distance = [np.abs(np.array(colour) - GREY).sum() for colour in (first[0][1], first[1][1])]
    assert distance[0] > distance[1]  # further from the neutral grey than its 0.9 neighbour


def test_zero_is_the_neutral_grey():
    console = true_colour()
    console.print(heatmap_picture(Heatmap(cells=np.zeros((2, 2)), edges=np.array([0, 1, 2])), "test"))
    (glyph,) = {(fg, bg) for _, fg, bg in glyph_colours(console.file.getvalue().splitlines()[1])}
    assert glyph == (tuple(GREY), tuple(GREY))


def test_without_colour_the_ascii_ramp_is_drawn():
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(heatmap_picture(Heatmap(cells=np.ones((3, 3)), edges=np.array([0, 1, 2, 3])), "test"))
    text = console.file.getvalue()
    assert "▀" not in text and "@@@@@@" in text


@pytest.mark.parametrize("width,height", [(80, 24), (200, 50), (40, 24)])
def test_sized_to_the_screen(width, height):
    rows = 100_000
    half = heatmap_cells_for_screen(width, height, rows, half_blocks=True)
    ramp = heatmap_cells_for_screen(width, height, rows, half_blocks=False)
    label = len(f"{rows:,}") + 2
    assert half <= width - label and 2 * ramp <= width - label  # one character a cell, or two
    assert (half + 1) // 2 + 9 <= height and ramp + 9 <= height  # the pictures fit the screen
    full = heatmap_cells_for_screen(width, height, rows, half_blocks=True, full=True)
    assert full == width - label
    assert heatmap_cells_for_screen(width, height, 12, half_blocks=True) == 12  # never more cells than rows
