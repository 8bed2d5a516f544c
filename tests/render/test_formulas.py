"""Prose wraps at spaces, never inside a formula: at 40, 60 and 80 columns every formula printed stays on one line.

Rich breaks a line at any whitespace (a no-break space included), so a formula is written without inner
spaces. Each document is rendered wide (nothing wraps) and narrow: every formula the wide text prints is
found whole in the narrow text, and no line (or table cell) ends with the start of a formula whose rest
opens the next line (the same cell). A formula written with spaces around an operator (``m − n``) is caught
in the wide text.
"""

from __future__ import annotations

import io
import re

import posemb_cli
import pytest
from rich.console import Console

SMALL = {"dim": 32, "ctx": 128, "seq_len": 16, "max_offset": 4, "device": "cpu"}

# Every formula the documents print in wrapped prose (titles, captions, notes, footnotes).
FORMULAS = (
    "PE(p+k)≈M_k·PE(p)", "max|q·k−f(m−n)|", "m−n", "d=|m−n|", "−slope·d", "exp(bias)",
    "16*eps*max|x|*sqrt(width)", "1.25*max|x|", "PE(p+k)~M_k*PE(p)", "|q.k-f(m-n)|", "residual/|PE(p+k)|",
    "-slope*|m-n|", "-slope_h*p", "(m,n)", "cumsum(mask)-1", "0..N+T-1", "max|attn(Px)−P·attn(x)|",
    "max|diff|/max|attn(x)|", "positional/token", "4..4+T-1", "q·PE(n)", "PE(m)·k",
)
# An operator between two spaces is a formula that a line can break.
SPACED = re.compile(r"\S [−≈·×] \S|\S [*/~] \S")


@pytest.fixture(scope="module")
def reports() -> dict:
    return {
        "compare": posemb_cli.compare(schemes=["learned", "sinusoidal", "rope", "alibi", "none"], heads=4, **SMALL),
        **{f"inspect {scheme}": posemb_cli.inspect(scheme=scheme, no_plot=True, **SMALL)
           for scheme in ("sinusoidal", "rope", "none", "learned")},
        "inspect alibi": posemb_cli.inspect(scheme="alibi", heads=4, no_plot=True, **SMALL),
        "order": posemb_cli.order(seq_len=8, device="cpu"),
        "padding": posemb_cli.padding(seq_len=8, pad=4, device="cpu"),
        "precision": posemb_cli.precision(dim=32, ctx=1024),
    }


def rendered(report, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, no_color=True, legacy_windows=False)
    console.print(report)
    return console.file.getvalue()


def _context_bound_lines(text: str) -> str:
    """The context bound's own line (render/context_bound.py) is left to its own tests."""
    return "\n".join(line for line in text.splitlines() if "Context bound" not in line and "Σ cos" not in line)


def _cells(line: str) -> list[str]:
    """A line's table cells (the line itself outside a table), stripped."""
    return [cell.strip() for cell in re.split(r"[│┃]", line)] if "│" in line or "┃" in line else [line.strip()]


def split_formulas(lines: list[str], formula: str) -> list[tuple[str, str]]:
    """Consecutive lines (cell by cell) where one ends with the start of ``formula`` and the next holds its rest."""
    found = []
    for first, second in zip(lines, lines[1:], strict=False):
        above, below = _cells(first), _cells(second)
        if len(above) != len(below):
            above, below = [first.strip()], [second.strip()]
        for a, b in zip(above, below, strict=True):
            found += [(a, b) for cut in range(1, len(formula))
                      if a.endswith(formula[:cut]) and b.startswith(formula[cut:]) and formula not in a]
    return found


def test_the_split_check_finds_a_split():
    assert not [formula for formula in FORMULAS if " " in formula]  # a space inside would be a place to break
    assert split_formulas(["a caption with PE(p+k)≈", "M_k·PE(p) in it"], "PE(p+k)≈M_k·PE(p)")
    assert split_formulas(["│ x │ largest |q.k- │", "│   │ f(m-n)| = 0 │"], "|q.k-f(m-n)|")
    assert not split_formulas(["│ x │ largest       │", "│   │ |q.k-f(m-n)| │"], "|q.k-f(m-n)|")


@pytest.mark.parametrize("width", [40, 60, 80])
def test_no_formula_is_split(reports, width):
    for name, report in reports.items():
        wide = rendered(report, 1000)
        narrow = rendered(report, width).splitlines()
        for formula in FORMULAS:
            if formula not in wide:
                continue
            assert any(formula in line for line in narrow), f"{name} at {width} columns: {formula!r} not whole"
            assert not split_formulas(narrow, formula), (name, width, split_formulas(narrow, formula))


def test_the_formulas_are_printed_and_none_has_inner_spaces(reports):
    wide = {name: _context_bound_lines(rendered(report, 1000)) for name, report in reports.items()}
    for name, text in wide.items():
        assert not SPACED.findall(text), (name, SPACED.findall(text))
    everything = "\n".join(wide.values())
    unused = [formula for formula in FORMULAS if formula not in everything]
    assert not unused, f"listed but never printed: {unused}"
