"""`posemb extend --text/--ids` for people: each candidate measured on the model beside its predicted rank, the two
rankings and their agreement in a sentence, how far each candidate copies, and per candidate a loss curve and a
retrieval curve beside it; computes nothing new.

The loss curves are sparklines of the report's own buckets, one character per bucket (equal parts of [0, L), the
trained length T one more edge, marked ``│``; a blank where a bucket has no finite mean), on one scale for every
candidate (its lowest and highest bucket mean, ``▁`` to ``█``), so that the curves compare at a glance. The
retrieval curves are the copy probes' top-1 accuracy by distance (``measured.retrieval.by_distance``), one
character per distance probed, shortest first, on the fixed scale 0 (``▁``) to 1 (``█``): the probes whose repeat
lies within T after ``within``, those beyond T after ``beyond``; then how far retrieval holds (``holds_to``).
"""

from __future__ import annotations

import math

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

from posemb_cli.commands.extend.report import ExtendReport
from posemb_cli.measures.copy_probes import SPAN, THRESHOLD, Retrieval
from posemb_cli.render.fit import Fitted, figure_table
from posemb_cli.render.format import count, general, number
from posemb_cli.runtime import RULE

__all__ = ["LossCurves", "measured_part", "retrieval_pieces"]

LEVELS = "▁▂▃▄▅▆▇█"
MARK = "│"
_LABEL = 11  # two spaces, the name in 8, a space (as the pair strips)


def _where(run) -> str:
    runtime, window = run.runtime, run.window
    files = ", ".join(window.files)
    what = f"{count(window.length)} {'tokens' if window.source == 'text' else 'ids'} of {files}"
    if window.documents > 1 and window.separator is not None:
        what += f" ({window.documents} documents joined by {window.separator.token})"
    placed = runtime.get("placement") or runtime.get("device")
    probes = len(run.probes)
    copied = (f"; {probes} copy probes written over the window (the same for every candidate) in a second forward "
              "of their own" if probes else "")
    return (f"Measured on the model: {what}, through {runtime.get('name')} {runtime.get('version')} "
            f"({runtime.get('model')}, {placed}, {runtime.get('dtype')}); the loss from one forward of the ids given "
            f"per candidate, no cache{copied}; loss in nats.")


def _holds(retrieval: Retrieval, region: str | None = None) -> str:
    if not retrieval.probes:
        return "n/a"
    held = retrieval.holds_to(region)
    return "none" if held is None else count(held)


def _table(report: ExtendReport):
    run = report.measurement
    assert run is not None
    predicted = {one.scaling: one.rank for one in report.candidates}
    table = figure_table(f"Measured at L = {count(run.length)}, best first", "scaling",
                         ("#", "pred.", "within T", "beyond T", "ratio", "mean", "s"))
    for rank, name in enumerate(run.ranking, start=1):
        measured = run.measured(name)
        profile = measured.profile
        table.add_row(name, str(rank), str(predicted[name]), number(profile.within, 3), number(profile.beyond, 3),
                      number(profile.ratio, 3), number(profile.mean_loss, 3), general(measured.seconds))
    return table


def _copies(report: ExtendReport) -> Text | None:
    """How far each candidate copies, in the measured order: a sentence (shown with or without the curves)."""
    run = report.measurement
    assert run is not None
    if not run.probes:
        return None
    held = "; ".join(f"{name} {_holds(run.measured(name).retrieval)}" for name in run.ranking)
    return Text(f"Copies to (the longest distance at which the top-1 accuracy on the repeat of {SPAN} random tokens "
                f"is at least {THRESHOLD:g}, as at every shorter one; {len(run.probes)} probes, "
                f"{count(run.probes[0].distance if len(run.probes) == 1 else min(p.distance for p in run.probes))} "
                f"to {count(max(p.distance for p in run.probes))} tokens apart): {held}.")


def _rankings(report: ExtendReport) -> Group:
    run = report.measurement
    assert run is not None
    agreement = run.agreement
    lines = [Text(f"Rule: {RULE}.", style="dim")]
    if agreement is None:
        return Group(*lines)
    rho = ("n/a with one candidate" if agreement.spearman is None else number(agreement.spearman, 3))
    lines.append(Text(f"Predicted: {', '.join(agreement.predicted_ranking)}. Measured: "
                      f"{', '.join(agreement.measured_ranking)}. Rank agreement (Spearman's rho): {rho}."))
    statement = agreement.statement()
    lines.append(Text(statement[0].upper() + statement[1:] + ".",
                      style="green" if not agreement.disagreements else "yellow"))
    return Group(*lines)


def _accuracy_line(values: list[float]) -> Text:
    line = Text()
    for value in values:
        line.append(LEVELS[min(len(LEVELS) - 1, max(0, round(value * (len(LEVELS) - 1))))], style="magenta")
    return line


def retrieval_pieces(retrieval: Retrieval) -> list[Text]:
    """The retrieval curve of one candidate in pieces that may go on one line or several: the accuracy by distance
    within T, beyond T, and how far it holds (none where no probe fits)."""
    if not retrieval.probes:
        return []
    pieces = []
    for region in ("within", "beyond"):
        values = [score.accuracy for one in retrieval.by_distance if (score := one.region(region)) is not None]
        if values:
            piece = Text(f"{region} ", style="dim")
            piece.append_text(_accuracy_line(values))
            pieces.append(piece)
    pieces.append(Text(f"copies to {_holds(retrieval)}", style="dim"))
    return pieces


class LossCurves:
    """One sparkline per candidate of its bucket means, T marked, within and beyond beside it where they fit, and
    its retrieval curve beside them (on the lines below where the width runs out)."""

    def __init__(self, report: ExtendReport) -> None:
        self.report = report

    def _scale(self) -> tuple[float, float]:
        run = self.report.measurement
        assert run is not None
        means = [bucket.mean_loss for item in run.scalings for bucket in item.profile.buckets
                 if math.isfinite(bucket.mean_loss)]
        return (min(means), max(means)) if means else (0.0, 1.0)

    def _line(self, buckets, low: float, high: float, trained: int) -> Text:
        line = Text()
        for bucket in buckets:
            if bucket.start == trained:
                line.append(MARK, style="bold")
            value = bucket.mean_loss
            if not math.isfinite(value):
                line.append(" ")  # no finite mean: a bucket of probe tokens only, or an infinite loss
                continue
            level = round((value - low) / (high - low) * (len(LEVELS) - 1)) if high > low else 0
            line.append(LEVELS[level], style="cyan")
        return line

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        run = self.report.measurement
        assert run is not None
        low, high = self._scale()
        trained, length = run.trained_length, run.length
        buckets = len(run.scalings[0].profile.buckets)
        yield Text(f"Loss by position over [0, {count(length)}): one character per bucket ({buckets} buckets), "
                   f"{MARK} at T = {count(trained)}; every curve on one scale, {LEVELS[0]} {general(low)} to "
                   f"{LEVELS[-1]} {general(high)} nats", style="dim")
        notes = [f"{number(item.profile.within, 2)} | {number(item.profile.beyond, 2)}" for item in run.scalings]
        width = max(len(item.profile.buckets) for item in run.scalings) + 1
        beside = options.max_width >= _LABEL + width + 2 + max(len(note) for note in notes)
        for name in run.ranking:
            item = run.measured(name)
            line = Text(f"  {name:<{_LABEL - 3}} ", no_wrap=True)
            line.append_text(self._line(item.profile.buckets, low, high, trained))
            note = notes[[one.name for one in run.scalings].index(name)]
            if beside:
                line.append(f"  {note}", style="dim")
            else:
                yield line
                line = Text(f"  {'':<{_LABEL - 3}} {note}", style="dim", no_wrap=True)
            for piece in retrieval_pieces(item.retrieval):
                if line.cell_len + 2 + piece.cell_len > options.max_width:
                    yield line
                    line = Text(f"  {'':<{_LABEL - 3}}", no_wrap=True)
                line.append("  " if line.plain.strip() else " ")
                line.append_text(piece)
            yield line
        gaps = any(not math.isfinite(bucket.mean_loss) for item in run.scalings for bucket in item.profile.buckets)
        yield Text(f"  within T | beyond T: mean loss below {count(trained)} and from it to {count(length)}"
                   + ("; a blank: a bucket without a finite mean (its positions all copy probes' tokens, or a loss "
                      "that is not finite)" if gaps else ""), style="dim")
        first = run.scalings[0].retrieval
        if first.probes:
            yield Text(f"  within ..., beyond ...: copy retrieval by distance, the top-1 accuracy on the repeat of "
                       f"{SPAN} random tokens, one character per distance probed, shortest first "
                       f"({count(first.by_distance[0].distance)} to {count(first.by_distance[-1].distance)}), the "
                       f"repeats within T and beyond it apart, {LEVELS[0]} 0 to {LEVELS[-1]} 1; copies to: the "
                       f"longest distance with accuracy at least {THRESHOLD:g} there and at every shorter one",
                       style="dim")


def measured_part(report: ExtendReport, *, pictures: bool = True) -> Group:
    """The measurement beside the prediction: where and how, the measured table, the rankings, the curves."""
    run = report.measurement
    assert run is not None
    parts: list = [Text(_where(run), style="dim"), Fitted(lambda: _table(report)), _rankings(report)]
    parts += [Text(f"Not measured: {one['why']}", style="yellow") for one in run.left_out]
    copies = _copies(report)
    if copies is not None:
        parts.append(copies)
    if pictures:
        parts.append(LossCurves(report))
    return Group(*parts)
