"""inspect's pictures fit one 80x24 screen by default; --pictures full makes the heatmap as wide as the terminal."""

from __future__ import annotations

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
ARGS = ["inspect", "--scheme", "sinusoidal", "--dim", "32", "--ctx", "2048", "--vocab", "50", "-b", "1", "-t", "8",
        "--device", "cpu"]


def pictures_of(output: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Similarity heatmap"))
    return lines[start:]


@pytest.fixture(autouse=True)
def _screen(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("columns,lines", [(80, 24), (200, 50)])
def test_pictures_fit_one_screen_by_default(monkeypatch, columns, lines):
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setenv("LINES", str(lines))
    result = runner.invoke(app, ARGS)
    assert result.exit_code == 0, result.output
    pictures = pictures_of(result.stdout)
    assert len(pictures) <= lines
    assert max(len(line) for line in result.stdout.splitlines()) <= columns


def test_full_is_as_wide_as_the_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("LINES", "24")
    screen = pictures_of(runner.invoke(app, ARGS).stdout)
    full = runner.invoke(app, [*ARGS, "--pictures", "full"])
    assert full.exit_code == 0, full.output
    wide = pictures_of(full.stdout)
    assert len(wide) > len(screen)  # more cells: rows past one screen
    body = [line for line in wide if line[:6].strip().replace(",", "").isdigit()]
    assert max(len(line.rstrip()) for line in body) > 100  # the ramp spans the terminal, two characters a cell
    assert max(len(line) for line in full.stdout.splitlines()) <= 120


def test_pictures_refuses_other_values():
    result = runner.invoke(app, [*ARGS, "--pictures", "huge"])
    assert result.exit_code == 2
    assert result.stderr.startswith("posemb: error: --pictures: 'huge'")
