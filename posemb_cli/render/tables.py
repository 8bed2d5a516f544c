"""The lesson's tables (shapes, parameters, neighbour similarity, norms, bands) from scheme reports."""

from __future__ import annotations

import math

from rich.table import Table
from rich.text import Text

from posemb_cli.render.format import BAR_WIDTH, bar, general, number, shape
from posemb_cli.run.report import SchemeReport

_MAX_BAND_ROWS = 16
_TENSORS = (("ids", "token ids"), ("token", "token vectors"), ("position", "position vectors"), ("output", "output"))


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
    for label, cell in rows:  # a dash where the model's token table is unknown
        table.add_row(label, *("-" if result.params.token is None and label != "positional" else cell(result.params)
                               for result in results))
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
    from posemb_cli.render.pictures import sparkline

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
    acts_on = "input" if result.signal is None else result.signal.acts_on
    title = {"input": "Neighbour similarity: cos(row p, row p+k) over every p of the table",
             "nothing": "Neighbour similarity: no position signal (n/a)"}.get(
        acts_on, f"Neighbour similarity of what position p carries in the {acts_on}, over every p")
    table = Table(title=title, title_justify="left")
    for name in ("k", "mean", "min", "max"):
        table.add_column(name, justify="right")
    table.add_column("mean", width=BAR_WIDTH, no_wrap=True)
    for row in result.neighbour_similarity:
        table.add_row(str(row["offset"]), number(row["mean"]), number(row["min"]), number(row["max"]), bar(row["mean"]))
    return table


def norms_table(result: SchemeReport) -> Table:
    stats = result.table
    adds_nothing = result.signal is not None and result.signal.acts_on != "input"
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
    from posemb_cli.render.position import full_turn_caption

    turns = full_turn_caption(result, ctx)
    caption = "; ".join(part for part in (turns, caption) if part) or None
    scaled = bands[0].inv_freq_unscaled is not None  # scaled rope: show the frequency before scaling too
    sets = tuple(key for key in ("inv_freq_short", "inv_freq_long") if getattr(bands[0], key) is not None)
    table = Table(title="Wavelength bands, one row per feature pair", title_justify="left", caption=caption)
    for name in ("pair", "frequency", *(("unscaled",) if scaled else ()), *(k[9:] for k in sets), "wavelength",
                 f"turns in ctx={ctx}"):
        table.add_column(name, justify="right")
    for band in shown:
        unscaled = (general(band.inv_freq_unscaled),) if scaled else ()
        table.add_row(str(band.pair), general(band.inv_freq), *unscaled, general(band.wavelength),
                      general(ctx / band.wavelength))
    sets = tuple(key for key in ("inv_freq_short", "inv_freq_long") if getattr(bands[0], key) is not None)
    return table
