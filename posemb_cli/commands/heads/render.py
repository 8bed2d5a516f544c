"""`posemb heads` for people: the RoPE sets, a layers x pairs heatmap of the mean share, the heads with most weight on
high-frequency and on beyond-critical pairs, and the kernels of those heads as sparklines; computes nothing new."""

from __future__ import annotations

import math

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

from posemb_cli.commands.heads.report import HeadsReport, LayerHeads, Pick
from posemb_cli.render.fit import Fitted, figure_table
from posemb_cli.render.format import count, general, number
from posemb_cli.render.pictures import sparkline
from posemb_cli.render.source import resolved_text
from posemb_cli.run.documents import shows

RAMP = " .:-=+*#%@"  # share 0 .. the largest mean share
_LOW, _HIGH = (240, 240, 240), (160, 20, 40)

__all__ = ["HeadsHeatmap", "render_heads"]


def _colour(t: float) -> str:
    r, g, b = (round(low + (high - low) * min(max(t, 0.0), 1.0)) for low, high in zip(_LOW, _HIGH, strict=True))
    return f"rgb({r},{g},{b})"


class HeadsHeatmap:
    """Layers down, pairs across (binned to the width: a cell is the mean of its pairs), shaded from 0 to the
    largest mean share; half blocks (two layers a line) with colour, else one ramp character per cell."""

    def __init__(self, layers: list[LayerHeads]) -> None:
        self.rows = [layer.mean_share for layer in layers]
        self.pairs = max((len(row) for row in self.rows), default=0)

    def _cells(self, width: int) -> tuple[list[list[float]], int]:
        step = max(1, math.ceil(self.pairs / max(width, 1)))
        cells = [[sum(row[i:i + step]) / len(row[i:i + step]) for i in range(0, len(row), step)] if row else []
                 for row in self.rows]
        return cells, step

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        label = len(str(len(self.rows) - 1)) + 1
        cells, step = self._cells(options.max_width - label)
        top = max((value for row in cells for value in row), default=0.0) or 1.0
        yield Text(f"Mean pair share per layer: pairs 0 to {self.pairs - 1} left to right"
                   + (f", {step} pairs a cell" if step > 1 else "") + "; blank: a layer without RoPE", style="bold")
        if console.color_system is not None and not console.no_color and not options.ascii_only:
            for i in range(0, len(cells), 2):
                line = Text(f"{i:>{label - 1}} ", style="dim")
                upper, lower = cells[i], cells[i + 1] if i + 1 < len(cells) else []
                for j in range(max(len(upper), len(lower))):
                    fg = _colour(upper[j] / top) if j < len(upper) else "default"
                    bg = _colour(lower[j] / top) if j < len(lower) else "default"
                    line.append("▀", style=f"{fg} on {bg}")
                yield line
            legend = Text(" " * label + "0 ", style="dim")
            for index in range(11):
                legend.append("█", style=_colour(index / 10))
            yield legend.append(f" {general(top)}  (two layers a line, the upper first)", style="dim")
            return
        for i, row in enumerate(cells):
            yield Text(f"{i:>{label - 1}} " + "".join(RAMP[round(v / top * (len(RAMP) - 1))] for v in row))
        yield Text(" " * label + f"'{RAMP[1]}' low to '{RAMP[-1]}' {general(top)}", style="dim")


_CONTEXT_FROM = {"original_max_position_embeddings": "the original context",
                 "max_position_embeddings": "the model's context", "sliding_window": "the sliding window"}


def _sets(report: HeadsReport) -> Group:
    """One line per RoPE set: its layers, base, pairs, critical pair and high-frequency pairs."""
    lines = [Text("RoPE sets (critical pair: the first whose wavelength λ exceeds the context T, Liu et al. 2023; "
                  "high-frequency pairs: λ at most √(2πT))", style="bold")]
    for one in report.sets:
        layers = sum(1 for layer in report.layers if layer.rope_set is not None and layer.rope_set.name == one.name)
        critical = one.critical_pair
        context = f"T {count(one.training_context)}, {_CONTEXT_FROM.get(one.context_from, one.context_from)}"
        beyond = (f"critical pair {count(critical)} (λ {general(one.wavelengths[critical])} > {context})"
                  if critical < one.rotary_pairs else f"no pair beyond {context}")
        high = f"high-frequency pairs 0-{one.high_pairs - 1}" if one.high_pairs else "no high-frequency pair"
        lines.append(Text(f"  {one.name}: {count(layers)} layers, base {general(one.base)}, "
                          f"{count(one.rotary_pairs)} pairs, {beyond}, {high}"))
    return Group(*lines)


def _picks(report: HeadsReport, picks: list[Pick], title: str):
    table = figure_table(title, "layer", ("head", "kv head", "high share", "beyond share"))
    table.add_column("label", no_wrap=True)
    for pick in picks:
        head = report.head(pick.layer, pick.head)
        table.add_row(str(pick.layer), str(head.head), str(head.kv_head), number(head.high_share, 3),
                      number(head.beyond_critical_share, 3), head.label)
    return table


def _kernels(report: HeadsReport, picks: list[Pick]) -> Group:
    lines = [Text(f"Kernel of the heads above: score(d) for d = {', '.join(count(d) for d in report.distances[:3])}"
                  f" ... {count(report.distances[-1])}, a sliding layer's within its window; each scaled by its "
                  "largest |score|", style="bold")]
    for pick in dict.fromkeys((p.layer, p.head) for p in picks):
        kernel = report.head(*pick).kernel
        distances = report.layers[pick[0]].kernel_distances(report.distances)
        line = Text(f"  layer {pick[0]:>3} head {pick[1]:>3}  ")
        if not kernel:
            line.append("no distance asked for lies within its window", style="dim")
            lines.append(line)
            continue
        largest = max((abs(v) for v in kernel if math.isfinite(v)), default=0.0) or 1.0
        line.append(sparkline([v / largest for v in kernel]), style="cyan")
        line.append(f"  {general(kernel[0])} at d={distances[0]:,} -> {general(kernel[-1])} at "
                    f"d={distances[-1]:,}", style="dim")
        lines.append(line)
    return Group(*lines)


def _header(report: HeadsReport) -> Text:
    model, source = report.model, report.source
    resolved = source.get("resolved")
    text = Text(f"posemb heads {source['checkpoint'] if resolved is None else resolved['name']}", style="bold")
    kv = model.get("kv_heads")
    text.append(f"  {model.get('model_type')}: {model.get('layers')} layers, {model.get('heads')} query heads and "
                f"{kv} key/value head{'' if kv == 1 else 's'} of {model.get('head_dim')} features, width "
                f"{model.get('hidden_size')}; {source['read_from']}", style="dim")
    notes = [source["norms"]]
    if source.get("qk_rows_unpermuted"):
        notes.append("q/k rows put back from llama.cpp's permuted order")
    if source.get("fused_qkv"):
        notes.append(f"fused q/k/v split ({source['fused_qkv']})")
    biases = sorted({name.rsplit(".", 2)[-2] for layer in report.layers for name in layer.biases})
    if biases:
        notes.append(f"biases left out: {', '.join(biases)}")
    named = resolved_text(source, file=source["checkpoint"])
    return Text.assemble(text, "\n", *((named, "\n") if named is not None else ()), Text("; ".join(notes), style="dim"))


def render_heads(report: HeadsReport, *, pictures: bool = True) -> Group:
    labels = report.labels
    summary = Text("Heads: " + ", ".join(f"{n} {name}" for name, n in labels.items()) +
                   " (positional: more than half the share on high pairs; semantic: on pairs at or beyond the "
                   "critical pair)")
    parts: list = [_header(report), _sets(report)]
    if pictures:
        parts.append(HeadsHeatmap(report.layers))
    parts += [summary,
              Fitted(lambda: _picks(report, report.most_high, "Most weight on high-frequency pairs")),
              Fitted(lambda: _picks(report, report.most_beyond, "Most weight at or beyond the critical pair"))]
    if pictures:
        parts.append(_kernels(report, [*report.most_high, *report.most_beyond]))
    return Group(*parts)


@shows(HeadsReport)
def shown(report: HeadsReport) -> Group:
    """What the command prints for ``report``, with or without its pictures as it was asked."""
    return render_heads(report, pictures=report.pictures)
