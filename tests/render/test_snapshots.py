"""Snapshots of the Rich output of compare, inspect and order, so that a change to a table shows up in review.

Reports are built by the run layer at fixed seeds on the CPU, exactly as the
commands build them, and rendered into 80- and 120-column consoles with no colour
(NO_COLOR), whatever the terminal running the tests. Update with
``python -m pytest tests/render/test_snapshots.py --snapshot-update`` and read the diff.
"""

from __future__ import annotations

import io

import pytest
from posemb_cli.commands.order.measure import run_order
from posemb_cli.commands.order.render import render_order
from posemb_cli.render.documents import render_compare, render_inspect
from posemb_cli.run.analysis import compare, inspect
from posemb_cli.run.config import make_config, with_position_settings
from rich.console import Console

WIDTHS = (80, 120)
# float64: the layout is what these pin; float32's last digits of sin and cos differ between CPUs' kernels
SIZES = {"dim": 32, "ctx": 128, "vocab": 1000, "batch": 2, "seq_len": 16, "seed": 0, "device": "cpu",
         "dtype": "float64", "max_offset": 8}


@pytest.fixture(autouse=True, params=WIDTHS, ids=lambda width: f"{width}cols")
def width(request, monkeypatch) -> int:
    """NO_COLOR, and a terminal of 80 or 120 columns by 24 rows for the pictures' size, wherever the tests run."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", str(request.param))
    monkeypatch.setenv("LINES", "24")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    return request.param


def rendered(renderable, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False,
                      legacy_windows=False)
    console.print(renderable)
    text = console.file.getvalue()
    assert "\x1b[" not in text
    assert max(len(line) for line in text.splitlines()) <= width
    return text


def settings(schemes: tuple[str, ...], **position) -> object:
    return with_position_settings(make_config(**SIZES), schemes=schemes, **{"heads": 4, **position})


@pytest.mark.parametrize("schemes", [("learned", "sinusoidal"), ("learned", "sinusoidal", "rope", "alibi", "none")],
                         ids=["default", "all"])
def test_compare(snapshot, schemes, width):
    report = compare(settings(schemes), schemes)
    assert rendered(render_compare(report), width) == snapshot


@pytest.mark.parametrize(("scheme", "position"), [
    ("sinusoidal", {}),
    ("rope", {"rope_scaling": "yarn", "rope_factor": 4.0}),
    ("alibi", {}),
], ids=["sinusoidal", "rope-yarn", "alibi"])
def test_inspect(snapshot, scheme, position, width):
    from posemb_cli.cli.commands.real_inputs import picture_observer

    observe = picture_observer(terminal=True, plot=None)  # the terminal pictures, as `posemb inspect` draws them
    report = inspect(settings((scheme,), **position), scheme, observe=observe)
    assert rendered(render_inspect(report), width) == snapshot


def test_order(snapshot, width):
    schemes = ("none", "learned", "sinusoidal", "rope", "alibi")
    report = run_order(settings(schemes), schemes)
    assert rendered(render_order(report), width) == snapshot
