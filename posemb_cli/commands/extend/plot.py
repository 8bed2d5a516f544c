"""``posemb extend --plot FILE.png|FILE.svg``: per RoPE set that needs extension, each candidate's compression
θ / θ' against the pair (extrapolated pairs marked), with the critical pair and, weighted by heads, the
mean pair share of the set's heads; measured (--text or --ids), one loss curve per candidate below them: the
report's bucket means over [0, L), the trained length T marked; and, where copy probes fit the window, one
retrieval curve per candidate below those: top-1 accuracy by distance, the repeats within T (solid, dots) and
beyond it (dashed, crosses), the threshold of ``holds_to`` dotted."""

from __future__ import annotations

from posemb_cli.commands.extend.report import ExtendReport, ExtendSet
from posemb_cli.render.plot import check_matplotlib, save_figure
from posemb_cli.run.documents import draws

__all__ = ["extend_figure", "write_extend_plot"]


def _set_axes(axes, one: ExtendSet) -> None:
    for found in one.candidates:
        pairs = [pair.pair for pair in found.pairs]
        line, = axes.plot(pairs, [pair.compression for pair in found.pairs], marker="o", markersize=2,
                          label=f"{found.scaling}" + ("" if found.factor is None else f" ({found.factor:g})"))
        out = [pair for pair in found.pairs if pair.cls == "extrapolated"]
        axes.scatter([pair.pair for pair in out], [pair.compression for pair in out], marker="x", s=30,
                     color=line.get_color())
    axes.axvline(one.critical_pair, color="black", linestyle="--", linewidth=0.8)
    axes.set_yscale("log")
    axes.set_title(f"{one.name}: compression θ/θ' per pair (x: extrapolated; dashed: critical pair)", fontsize=9)
    axes.set_xlabel("pair")
    axes.set_ylabel("θ / θ'")
    axes.legend(fontsize=7)


def _share_axes(axes, one: ExtendSet) -> None:
    names = [found.scaling for found in one.candidates]
    extrapolated = [found.extrapolated_share for found in one.candidates]
    axes.barh(names, extrapolated, color="tab:red", label="extrapolated share")
    axes.barh(names, [found.compressed_share for found in one.candidates], left=extrapolated, color="tab:olive",
              label="compressed share")
    axes.set_xlim(0, 1)
    axes.invert_yaxis()
    axes.set_title(f"{one.name}: weight on each class (weighted by {one.candidates[0].weighted_by})", fontsize=9)
    axes.legend(fontsize=7)


def _loss_axes(axes, report: ExtendReport) -> None:
    run = report.measurement
    assert run is not None
    predicted = {one.scaling: one.rank for one in report.candidates}
    for rank, name in enumerate(run.ranking, start=1):
        profile = run.measured(name).profile
        edges = [bucket.start for bucket in profile.buckets] + [profile.buckets[-1].stop]
        axes.stairs([bucket.mean_loss for bucket in profile.buckets], edges, linewidth=1.5,
                    label=f"{name}: mean {profile.mean_loss:.3f} (measured #{rank}, predicted #{predicted[name]})")
    axes.axvline(run.trained_length, color="black", linestyle="--", linewidth=0.8)
    axes.set_xlim(0, run.length)
    axes.set_title(f"measured: next-token loss by position, bucket means over {run.length:,} tokens "
                   f"(dashed: trained length {run.trained_length:,})", fontsize=9)
    axes.set_xlabel("position")
    axes.set_ylabel("loss (nats)")
    axes.legend(fontsize=7)


def _retrieval_axes(axes, report: ExtendReport) -> None:
    from posemb_cli.measures.copy_probes import SPAN, THRESHOLD

    run = report.measurement
    assert run is not None
    for name in run.ranking:
        retrieval = run.measured(name).retrieval
        held = retrieval.holds_to()
        tag = f"{name} (copies to {'none' if held is None else f'{held:,}'})"
        color = None
        for region, style, marker in (("within", "-", "o"), ("beyond", "--", "x")):
            shown = [(one.distance, score.accuracy) for one in retrieval.by_distance
                     if (score := one.region(region)) is not None]
            if shown:
                line, = axes.plot([distance for distance, _ in shown], [accuracy for _, accuracy in shown],
                                  linestyle=style, marker=marker, markersize=4, color=color, label=f"{tag}, {region} T")
                color = line.get_color()
    axes.axvline(run.trained_length, color="black", linestyle="--", linewidth=0.8)
    axes.axhline(THRESHOLD, color="grey", linestyle=":", linewidth=0.8)
    axes.set_xscale("log", base=2)
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(f"measured: copy retrieval, top-1 accuracy on the repeat of {SPAN} random tokens by distance "
                   f"(dashed: trained length {run.trained_length:,}; dotted: {THRESHOLD:g})", fontsize=9)
    axes.set_xlabel("distance (tokens)")
    axes.set_ylabel("top-1 accuracy")
    axes.legend(fontsize=7, ncol=2)


def extend_figure(report: ExtendReport):
    """The report's figure as a matplotlib ``Figure`` (no pyplot state)."""
    from matplotlib.figure import Figure

    shown = [one for one in report.sets if one.candidates]
    rows = max(len(shown), 1)
    measured = report.measurement is not None
    probed = report.measurement is not None and bool(report.measurement.probes)
    figure = Figure(figsize=(12.0, 4.0 * (rows + measured + probed)), layout="constrained")
    grid = figure.add_gridspec(rows + measured + probed, 2)
    for row, one in enumerate(shown):
        _set_axes(figure.add_subplot(grid[row, 0]), one)
        _share_axes(figure.add_subplot(grid[row, 1]), one)
    if measured:
        _loss_axes(figure.add_subplot(grid[rows, :]), report)
    if probed:
        _retrieval_axes(figure.add_subplot(grid[rows + 1, :]), report)
    figure.suptitle(f"posemb extend  {report.source['model']} to {report.to:,}")
    return figure


def write_extend_plot(path: str, report: ExtendReport) -> None:
    """Draw the report's figure into ``path`` (.png or .svg)."""
    save_figure(extend_figure(report), path)


@draws(ExtendReport)
def figure(report: ExtendReport):
    """The figure ``--plot`` writes for ``report`` (matplotlib, the ``plot`` extra, checked first)."""
    check_matplotlib()
    return extend_figure(report)
