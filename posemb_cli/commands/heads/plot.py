"""``posemb heads --plot FILE.png|FILE.svg``: the terminal pictures of ``commands.heads.render``
as one matplotlib figure.

Top left: layers x pairs, the mean pair share, each layer's critical pair marked. Top right: the mean
share per pair of each RoPE set, its critical pair and last high-frequency pair as lines. Bottom left:
each head's high-frequency share against its beyond-critical share, coloured by label. Bottom right:
the kernels of the picked heads against distance, each scaled by its largest |score|.
"""

from __future__ import annotations

import math

from posemb_cli.commands.heads.report import HeadsReport
from posemb_cli.render.plot import check_matplotlib, save_figure
from posemb_cli.run.documents import draws

_LABEL_COLOURS = {"positional": "tab:red", "semantic": "tab:blue", "mixed": "tab:grey"}

__all__ = ["write_heads_plot"]


def _heatmap(axes, figure, report: HeadsReport) -> None:
    import numpy as np

    pairs = max((len(layer.mean_share) for layer in report.layers), default=0)
    image = np.full((len(report.layers), max(pairs, 1)), np.nan)
    for layer in report.layers:
        image[layer.layer, : len(layer.mean_share)] = layer.mean_share
    shown = axes.imshow(image, aspect="auto", cmap="Reds", interpolation="nearest", origin="upper")
    critical = [(layer.rope_set.critical_pair, layer.layer) for layer in report.layers if layer.rope_set is not None]
    if critical:
        axes.scatter([c for c, _ in critical], [index for _, index in critical], marker="|", color="black", s=30,
                     label="critical pair")
        axes.legend(fontsize=7, loc="lower right")
    figure.colorbar(shown, ax=axes, shrink=0.8, label="mean pair share")
    axes.set_title("mean pair share per layer", fontsize=9)
    axes.set_xlabel("pair")
    axes.set_ylabel("layer")


def _per_set(axes, report: HeadsReport) -> None:
    for one in report.sets:
        rows = [layer.mean_share for layer in report.layers
                if layer.rope_set is not None and layer.rope_set.name == one.name and layer.mean_share]
        if not rows:
            continue
        mean = [sum(column) / len(rows) for column in zip(*rows, strict=True)]
        line, = axes.plot(range(len(mean)), mean, label=f"{one.name} (base {one.base:,.0f})")
        axes.axvline(one.critical_pair, color=line.get_color(), linestyle="--", linewidth=0.8)
        axes.axvline(one.high_pairs - 0.5, color=line.get_color(), linestyle=":", linewidth=0.8)
    axes.set_title("mean share per pair (dashed: critical pair; dotted: end of high pairs)", fontsize=9)
    axes.set_xlabel("pair")
    axes.set_ylabel("share")
    axes.legend(fontsize=7)


def _labels(axes, report: HeadsReport) -> None:
    for name, colour in _LABEL_COLOURS.items():
        points = [(h.high_share, h.beyond_critical_share) for layer in report.layers for h in layer.heads
                  if h.label == name]
        axes.scatter([p[0] for p in points], [p[1] for p in points], s=8, color=colour,
                     label=f"{name} ({len(points)})")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_title("each head: share on high vs beyond-critical pairs", fontsize=9)
    axes.set_xlabel("high-frequency share")
    axes.set_ylabel("beyond-critical share")
    axes.legend(fontsize=7)


def _kernels(axes, report: HeadsReport) -> None:
    for layer, head in dict.fromkeys((p.layer, p.head) for p in (*report.most_high, *report.most_beyond)):
        kernel = report.head(layer, head).kernel
        if not kernel:
            continue
        largest = max((abs(v) for v in kernel if math.isfinite(v)), default=0.0) or 1.0
        axes.plot(report.layers[layer].kernel_distances(report.distances), [v / largest for v in kernel],
                  marker="o", markersize=2,
                  label=f"layer {layer} head {head}")
    axes.set_xscale("symlog", linthresh=1)
    axes.axhline(0.0, color="grey", linewidth=0.5)
    axes.set_title("kernel of the picked heads (scaled by the largest |score|)", fontsize=9)
    axes.set_xlabel("distance d")
    axes.set_ylabel("score(d)")
    axes.legend(fontsize=6, ncol=2)


def heads_figure(report: HeadsReport):
    """The report's figure as a matplotlib ``Figure`` (no pyplot state): heatmap, per-set shares, labels, kernels."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(12.0, 9.0), layout="constrained")
    grid = figure.subplots(2, 2)
    _heatmap(grid[0][0], figure, report)
    _per_set(grid[0][1], report)
    _labels(grid[1][0], report)
    _kernels(grid[1][1], report)
    figure.suptitle(f"posemb heads  {report.source['checkpoint']}")
    return figure


def write_heads_plot(path: str, report: HeadsReport) -> None:
    """Draw the report's figure into ``path`` (.png or .svg)."""
    save_figure(heads_figure(report), path)


@draws(HeadsReport)
def figure(report: HeadsReport):
    """The figure ``--plot`` writes for ``report`` (matplotlib, the ``plot`` extra, checked first)."""
    check_matplotlib()
    return heads_figure(report)
