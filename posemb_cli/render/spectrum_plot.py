"""The top principal components of learned or checkpoint tables, drawn into a matplotlib axes."""

from __future__ import annotations

from posemb_cli.render.spectrum import CURVES
from posemb_cli.run.report import SchemeReport

__all__ = ["has_spectrum", "spectrum_axes"]


def has_spectrum(results: list[SchemeReport]) -> bool:
    return any(result.signal is not None and result.signal.spectrum is not None for result in results)


def spectrum_axes(axes, results: list[SchemeReport]) -> None:
    """Each table's first components against position, labelled with their variance share and period."""
    for result in results:
        spectrum = None if result.signal is None else result.signal.spectrum
        if spectrum is None:
            continue
        scores = spectrum.scores  # (L, k)
        for index in range(min(CURVES, scores.shape[1])):
            share, period = spectrum.explained_variance[index], spectrum.periods[index]
            axes.plot(scores[:, index], linewidth=0.8,
                      label=f"{result.scheme} PC{index + 1} ({100 * share:.1f}%, period {period:.4g})")
    axes.set_title("principal components of the table over positions", fontsize=9)
    axes.set_xlabel("position")
    axes.set_ylabel("component score")
    axes.legend(fontsize=7)
