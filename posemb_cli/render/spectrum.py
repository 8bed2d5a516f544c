"""A table's principal components for people: the variance and period of each, and a curve per top component.

Reads the ``spectrum`` figure and, when pictures were asked for, draws its
component scores (L, k) against position; computes nothing.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from posemb_cli.measures.spectrum import Spectrum
from posemb_cli.render.fit import Fitted
from posemb_cli.render.format import general, percent
from posemb_cli.render.pictures import sparkline
from posemb_cli.run.report import SchemeReport

CURVES = 3
_WIDTH = 56

__all__ = ["CURVES", "sampled_curve", "spectrum_parts"]


def sampled_curve(values, width: int = _WIDTH) -> list[float]:
    """``width`` evenly spaced samples of a curve, scaled so its largest |value| is 1."""
    rows = len(values)
    picks = [values[round(i * (rows - 1) / max(width - 1, 1))] for i in range(min(width, rows))]
    scale = max(abs(float(v)) for v in values) or 1.0
    return [float(v) / scale for v in picks]


def _table(spectrum: Spectrum, *, curves: bool) -> Table:
    scores = spectrum.scores if curves else None
    table = Table(title=f"What the table learned: principal components over its {spectrum.rows} positions "
                        f"({spectrum.method} SVD of the centred table)", title_justify="left",
                  caption="period: rows per cycle of the component's strongest frequency (rows/FFT bin)"
                  + (f"; approximate: one read, no power iteration, each share at most "
                     f"{percent(spectrum.shortfall)} below the true one" if spectrum.method != "exact" else ""),
                  caption_justify="left")
    for name in ("component", "variance", "period (rows)", "bin"):
        table.add_column(name, justify="right", no_wrap=True)  # figures are never cut
    if scores is not None:
        table.add_column("against position (scaled to ±1)", no_wrap=True)
    for index, (share, period, frequency) in enumerate(zip(
            spectrum.explained_variance, spectrum.periods, spectrum.frequency_bins, strict=True)):
        curve: tuple[Text | str, ...] = ()
        if scores is not None:
            curve = (Text(sparkline(sampled_curve(scores[:, index])), style="cyan") if index < CURVES else "",)
        table.add_row(f"PC{index + 1}", percent(share), general(period), str(frequency), *curve)
    return table


def spectrum_parts(result: SchemeReport) -> list:
    """The spectrum table, or nothing for schemes without one."""
    spectrum = None if result.signal is None else result.signal.spectrum
    if spectrum is None:
        return []
    # Curves only where terminal pictures were asked for (a --plot file's heatmap alone draws none here);
    # where they do not fit the width, the table without them.
    if "heatmap" in result.pictures:
        return [Fitted(lambda: _table(spectrum, curves=True), lambda: _table(spectrum, curves=False))]
    return [Fitted(lambda: _table(spectrum, curves=False))]
