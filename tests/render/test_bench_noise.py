"""bench ranks by median time and says when a spread makes the timing noisy."""

from __future__ import annotations

import io

from posemb_cli.commands.bench.report import BenchReport
from posemb_cli.render.speed import NOISY_SPREAD, bench_table
from rich.console import Console


def row(scheme: str, median: float, spread: float) -> dict:
    return {"scheme": scheme, "dim": 64, "median_s": median, "spread": spread, "copy_spread": 0.01,
            "tokens_per_s": 1e6 / median, "bytes_per_s": 1e8 / median, "copy_bytes_per_s": 2e8,
            "fraction_of_copy": 0.5, "fresh_output_fraction_of_copy": 0.4}


def render(results: list[dict]) -> str:
    config = {"device": "cpu", "dtype": "float32", "batch": 2, "seq_len": 16, "repeats": 5}
    console = Console(file=io.StringIO(), width=80, color_system=None)
    console.print(bench_table(BenchReport(config=config, results=results)))
    return console.file.getvalue()


def test_ranked_by_median_fastest_first():
    text = render([row("learned", 3e-3, 0.01), row("sinusoidal", 1e-3, 0.01), row("rope", 2e-3, 0.01)])
    order = [name for line in text.splitlines() for name in ("learned", "sinusoidal", "rope")
             if line.strip().startswith(name)]
    # at 80 columns the figures are split over two tables, each ranked the same way
    assert order and order == ["sinusoidal", "rope", "learned"] * (len(order) // 3)
    assert "noisy" not in text


def test_a_spread_past_the_threshold_is_called_noisy_with_the_remedy():
    text = render([row("learned", 1e-3, NOISY_SPREAD * 6.4), row("sinusoidal", 2e-3, 0.01)])
    assert "noisy: 1 of 2 timings spread more than 25%" in " ".join(text.split())
    assert "--repeats" in text and "(now 5)" in text
    assert "160%" in text  # the spread itself is still shown, as a percentage
