"""Rich tables and pictures from a report; computes nothing new."""

from __future__ import annotations

import math

from rich.console import Group
from rich.table import Table
from rich.text import Text

from .report import CompareReport, InspectReport, SchemeReport

_EIGHTHS = " ▏▎▍▌▋▊▉█"
_BAR_WIDTH = 20
_MAX_BAND_ROWS = 16
_TENSORS = (("ids", "token ids"), ("token", "token vectors"), ("position", "position vectors"), ("output", "output"))


def number(value: float | None, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.{digits}f}"


def general(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.4g}"


def shape(dims: list[int]) -> str:
    return "(" + ", ".join(str(d) for d in dims) + ")"


def bar(value: float | None, width: int = _BAR_WIDTH) -> Text:
    """A horizontal bar for a cosine in [-1, 1]: length |value|, green when positive, red when negative."""
    if value is None or not math.isfinite(value):
        return Text("")
    eighths = round(min(abs(value), 1.0) * width * 8)
    full, part = divmod(eighths, 8)
    body = "█" * full + (_EIGHTHS[part] if part else "")
    return Text(body, style="green" if value >= 0 else "red")


def header(config: dict, title: str) -> Text:
    text = Text()
    text.append(f"posemb {title}", style="bold")
    text.append(
        f"  D={config['dim']} ctx={config['ctx']} V={config['vocab']} "
        f"B×T={config['batch']}×{config['seq_len']} {config['device']}/{config['dtype']} seed={config['seed']}",
        style="dim",
    )
    return text


def shapes_table(results: list[SchemeReport]) -> Table:
    table = Table(title="Shapes", title_justify="left")
    table.add_column("tensor")
    for result in results:
        table.add_column(result.scheme, justify="right")
    for key, label in _TENSORS:
        table.add_row(label, *(shape(result.shapes[key]) for result in results))
    return table


def params_table(results: list[SchemeReport]) -> Table:
    table = Table(title="Parameters", title_justify="left")
    table.add_column("")
    for result in results:
        table.add_column(result.scheme, justify="right")
    rows = (
        ("token", lambda p: f"{p.token:,}"),
        ("positional", lambda p: f"{p.position:,}"),
        ("total", lambda p: f"{p.total:,}"),
        ("overhead (positional / token)", lambda p: f"{100 * p.overhead:.2f}%"),
    )
    for label, cell in rows:
        table.add_row(label, *(cell(result.params) for result in results))
    return table


def decay_comparison(results: list[SchemeReport]) -> Table:
    spread = len(results) <= 2  # min … max per scheme fits beside the means for two schemes
    table = Table(title="Neighbour similarity: mean cos(row p, row p+k) over the whole table", title_justify="left",
                  caption=None if spread else "min and max over p: posemb inspect --scheme NAME, or --json")
    table.add_column("k", justify="right")
    for result in results:
        table.add_column(f"{result.scheme}\nmean" if spread else result.scheme, justify="right", no_wrap=True)
        if spread:
            table.add_column("\nmin … max", justify="right", style="dim", no_wrap=True)
    for index, first in enumerate(results[0].neighbour_similarity):
        cells = []
        for result in results:
            row = result.neighbour_similarity[index]
            cells.append(number(row["mean"]))
            if spread:
                cells.append(f"{number(row['min'], 2)} … {number(row['max'], 2)}")
        table.add_row(str(first["offset"]), *cells)
    from .render_pictures import sparkline

    curves = []
    for result in results:  # the means of k = 1..K on a -1 .. +1 scale
        means = [row["mean"] if row["mean"] is not None else math.nan for row in result.neighbour_similarity]
        curves.append(Text(sparkline(means), style="cyan"))
        if spread:
            curves.append("")
    table.add_section()
    table.add_row("1…K", *curves)
    return table


def decay_detail(result: SchemeReport) -> Table:
    acts_on = result.extra.get("acts_on", "input")
    title = {"input": "Neighbour similarity: cos(row p, row p+k) over every p of the table",
             "nothing": "Neighbour similarity: no position signal (n/a)"}.get(
        acts_on, f"Neighbour similarity of what position p carries in the {acts_on}, over every p")
    table = Table(title=title, title_justify="left")
    for name in ("k", "mean", "min", "max"):
        table.add_column(name, justify="right")
    table.add_column("mean", width=_BAR_WIDTH, no_wrap=True)
    for row in result.neighbour_similarity:
        table.add_row(str(row["offset"]), number(row["mean"]), number(row["min"]), number(row["max"]), bar(row["mean"]))
    return table


def norms_table(result: SchemeReport) -> Table:
    stats = result.table
    adds_nothing = result.extra.get("acts_on", "input") != "input"
    table = Table(title="Row norms of the positional table", title_justify="left",
                  caption="all zero: adds nothing to the input" if adds_nothing else None)
    for name in ("rows", "dim", "min", "mean", "max"):
        table.add_column(name, justify="right")
    table.add_row(str(stats["rows"]), str(stats["dim"]), number(stats["norm_min"]),
                  number(stats["norm_mean"]), number(stats["norm_max"]))
    return table


def bands_table(result: SchemeReport, ctx: int) -> Table:
    bands = result.bands
    shown = bands
    if len(bands) > _MAX_BAND_ROWS:
        step = (len(bands) - 1) / (_MAX_BAND_ROWS - 1)
        shown = [bands[round(i * step)] for i in range(_MAX_BAND_ROWS)]
    caption = f"{len(shown)} of {len(bands)} pairs shown; --json lists all" if shown is not bands else None
    from .render_position import full_turn_caption

    turns = full_turn_caption(result, ctx)
    caption = "; ".join(part for part in (turns, caption) if part) or None
    scaled = "inv_freq_unscaled" in bands[0]  # scaled rope: show the frequency before scaling too
    table = Table(title="Wavelength bands, one row per feature pair", title_justify="left", caption=caption)
    for name in ("pair", "frequency", *(("unscaled",) if scaled else ()), "wavelength", f"turns in ctx={ctx}"):
        table.add_column(name, justify="right")
    for band in shown:
        unscaled = (general(band["inv_freq_unscaled"]),) if scaled else ()
        table.add_row(str(band["pair"]), general(band["inv_freq"]), *unscaled, general(band["wavelength"]),
                      general(ctx / band["wavelength"]))
    return table


def render_compare(report: CompareReport) -> Group:
    results = report.results
    from .render_position import compare_parts
    from .render_source import source_line

    sources = [line for line in map(source_line, results) if line is not None]  # a real model's table
    return Group(header(report.config, "compare"), *sources, shapes_table(results), params_table(results),
                 decay_comparison(results), *compare_parts(results))


def render_inspect(report: InspectReport) -> Group:
    result = report.result
    parts = [header(report.config, f"inspect {result.scheme}"), shapes_table([result]), params_table([result]),
             decay_detail(result), norms_table(result)]
    from .render_source import source_line

    if source_line(result) is not None:  # a real model's table or config
        parts.insert(1, source_line(result))
    if result.bands:
        parts.append(bands_table(result, report.config["ctx"]))
    from .render_position import inspect_parts

    parts.extend(inspect_parts(result))
    if result.figures.get("heatmap") is not None:  # pictures were asked for (not --json, not --no-plot)
        from .render_pictures import pictures

        parts.extend(pictures(result))
    return Group(*parts)
