"""The lesson's tables (shapes, parameters, neighbour similarity, norms, bands) from scheme reports."""

from __future__ import annotations

import math

from rich.console import Group
from rich.table import Table
from rich.text import Text

from posemb_cli.render.distance_penalty import left_out_line
from posemb_cli.render.fit import Fitted, figure_table
from posemb_cli.render.format import BAR_WIDTH, bar, count, general, number, percent, sampled_positions, shape
from posemb_cli.run.report import SchemeReport

_MAX_BAND_ROWS = 16
_TENSORS = (("ids", "token ids"), ("token", "token vectors"), ("position", "position vectors"), ("output", "output"))


def shapes_table(results: list[SchemeReport]) -> Fitted:
    """One row per scheme, one column per tensor; one small table per scheme where that does not fit."""
    return Fitted(lambda: _shapes_table(results))


def _shapes_table(results: list[SchemeReport]) -> Table:
    table = Table(title="Shapes", title_justify="left")
    table.add_column("scheme", no_wrap=True)
    for _, label in _TENSORS:
        table.add_column(label, justify="right", no_wrap=True)
    for result in results:
        table.add_row(result.scheme, *(shape(result.shapes[key]) for key, _ in _TENSORS))
    return table


def params_table(results: list[SchemeReport]) -> Fitted:
    """One row per scheme: token, positional and total parameters, and the overhead as a percentage."""
    return Fitted(lambda: _params_table(results))


def _params_table(results: list[SchemeReport]) -> Table:
    table = figure_table("Parameters", "scheme", ("token", "positional", "total", "overhead"),
                         caption="overhead = positional/token (--json: a ratio)")
    for result in results:  # a dash where the model's token table is unknown
        p = result.params
        if p.token is None or p.total is None:
            table.add_row(result.scheme, "-", count(p.position), "-", "-")
        else:
            table.add_row(result.scheme, count(p.token), count(p.position), count(p.total), percent(p.overhead))
    return table


def _coverage_caption(results: list[SchemeReport]) -> str:
    """"over every p of the whole table", or which schemes were measured over a sample of positions."""
    sampled = [(result.scheme, sampled_positions(result.coverage)) for result in results]
    if all(over is None for _, over in sampled):
        return "over every p of the whole table"
    return "; ".join(f"{name}: {over or 'over every p'}" for name, over in sampled) + " (--full: every p)"


def _decay_table(results: list[SchemeReport], *, spread: bool) -> Table:
    table = Table(title="Neighbour similarity: mean cosine of rows p and p+k", title_justify="left",
                  caption=_coverage_caption(results) + ("" if spread else
                          "\nmin and max over p: posemb inspect --scheme NAME, or --json"),
                  caption_justify="left")
    table.add_column("k", justify="right", no_wrap=True)
    for result in results:
        table.add_column(f"{result.scheme}\nmean" if spread else result.scheme, justify="right", no_wrap=True)
        if spread:
            table.add_column("\nmin … max", justify="right", style="dim", no_wrap=True)
    for index, first in enumerate(results[0].neighbour_similarity or []):
        cells = []
        for result in results:
            row = (result.neighbour_similarity or [])[index]
            cells.append(number(row["mean"]))
            if spread:
                cells.append(f"{number(row['min'])} … {number(row['max'])}")
        table.add_row(count(first["offset"]), *cells)
    from posemb_cli.render.pictures import sparkline

    curves: list[Text | str] = []
    for result in results:  # the means of k = 1..K on a -1 .. +1 scale
        means = [row["mean"] if row["mean"] is not None else math.nan for row in (result.neighbour_similarity or [])]
        curves.append(Text(sparkline(means), style="cyan"))
        if spread:
            curves.append("")
    table.add_section()
    table.add_row("1…K", *curves)
    return table


def decay_comparison(results: list[SchemeReport]) -> Group:
    """Schemes side by side (with min … max for two or fewer), or one table per scheme where that is too wide;
    a scheme whose neighbour similarity does not apply (ALiBi) is left out, with one line saying why."""
    shown = [result for result in results if left_out_line(result, "neighbour_similarity") is None]
    notes = [line for line in (left_out_line(result, "neighbour_similarity") for result in results) if line]
    if not shown:
        return Group(*notes)
    return Group(Fitted(lambda: _decay_table(shown, spread=len(shown) <= 2),
                        lambda: Group(*(_decay_table([result], spread=True) for result in shown))), *notes)


def decay_detail(result: SchemeReport) -> Table:
    """mean, min and max over p by offset k, the formula's exact value beside them where there is one."""
    acts_on = "input" if result.signal is None else result.signal.acts_on
    over = sampled_positions(result.coverage)
    every = "" if over else " over every p"  # a sampled pass says which p in the caption
    title = {"input": f"Neighbour similarity: cosine of rows p and p+k{every} of the table",
             "nothing": "Neighbour similarity: no position signal (n/a)"}.get(
        acts_on, f"Neighbour similarity of what position p carries in the {acts_on}" + (f",{every}" if every else ""))
    rows = result.neighbour_similarity or []
    exact = bool(rows) and "exact" in rows[0]
    captions = [f"{over} (--full: every p)" if over else None,
                "exact: the formula in float64, the same at every p; mean, min, max: as measured in the dtype"
                if exact else None]
    caption = "\n".join(line for line in captions if line) or None
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    for name in ("k", "mean", "min", "max", *(("exact",) if exact else ())):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("mean", width=BAR_WIDTH, no_wrap=True)
    digits = 7 if exact else 4  # the gap to the exact value is the precision lost: show it
    for row in rows:
        figures = [number(row[key], digits) for key in ("mean", "min", "max", *(("exact",) if exact else ()))]
        table.add_row(str(row["offset"]), *figures, bar(row["mean"]))
    return table


def norms_table(result: SchemeReport) -> Table | Text:
    """min, mean and max row norm; for a scheme that adds nothing to the input, one line saying so."""
    stats = result.table or {}  # called only for a scheme with an additive table
    acts_on = "input" if result.signal is None else result.signal.acts_on
    if acts_on != "input":
        where = "nothing at all" if acts_on == "nothing" else f"the {acts_on}"
        bounded = result.signal is None or result.signal.scorecard.boundedness.applies
        return Text(f"Row norms of the positional table: none. {result.scheme} adds nothing to the input; its "
                    f"position acts on {where}" + (", and the scorecard's boundedness measures that signal."
                                                   if bounded else "."))
    over = sampled_positions(result.coverage)
    table = Table(title="Row norms of the positional table", title_justify="left",
                  caption=f"min, mean, max {over}" if over else None, caption_justify="left")
    for name in ("rows", "dim", "min", "mean", "max"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_row(count(stats["rows"]), count(stats["dim"]), number(stats["norm_min"]), number(stats["norm_mean"]),
                  number(stats["norm_max"]))
    return table


def bands_table(result: SchemeReport, ctx: int) -> Table:
    """One row per feature pair (an even sample past 16 pairs, with a ⋮ row where pairs are skipped)."""
    bands = result.bands or []
    shown = bands
    if len(bands) > _MAX_BAND_ROWS:
        step = (len(bands) - 1) / (_MAX_BAND_ROWS - 1)
        shown = [bands[round(i * step)] for i in range(_MAX_BAND_ROWS)]
    from posemb_cli.render.position import full_turn_caption

    lines = [full_turn_caption(result, ctx),
             f"{len(shown)} of {len(bands)} pairs shown, ⋮ after a gap; --json lists all"
             if shown is not bands else None]
    caption = "\n".join(line for line in lines if line) or None
    scaled = bands[0].inv_freq_unscaled is not None  # scaled rope: show the frequency before scaling too
    sets = tuple(key for key in ("inv_freq_short", "inv_freq_long") if getattr(bands[0], key) is not None)
    table = Table(title="Wavelength bands, one row per feature pair", title_justify="left", caption=caption,
                  caption_justify="left")
    sampled = shown is not bands
    if sampled:
        table.add_column("", style="dim", no_wrap=True)  # ⋮ where pairs before this row are not shown
    for name in ("pair", "frequency", *(("unscaled",) if scaled else ()), *(k[9:] for k in sets), "wavelength",
                 f"turns in ctx={count(ctx)}"):
        table.add_column(name, justify="right", no_wrap=True)
    previous = -1
    for band in shown:
        gap = "⋮" if band.pair - previous > 1 else ""
        previous = band.pair
        unscaled = (general(band.inv_freq_unscaled),) if scaled else ()
        table.add_row(*((gap,) if sampled else ()), count(band.pair), general(band.inv_freq), *unscaled,
                      *(general(getattr(band, key)) for key in sets), general(band.wavelength),
                      general(ctx / band.wavelength))
    return table
