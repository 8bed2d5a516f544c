"""Rich tables for `posemb bench` and `posemb sweep`; computes nothing new."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from posemb_cli.render.fit import Fitted, figure_table
from posemb_cli.render.format import count, general, number, percent

NOISY_SPREAD = 0.25  # interquartile range over the median above which a timing is called noisy


def bench_table(report) -> Fitted:
    """The bench table; below the width it needs its cells fold, never cut."""
    return Fitted(lambda: _bench_table(report))


def _bench_table(report) -> Table:
    """One row per (scheme, dim), fastest median first: forward median and spread, rates, fraction of a copy."""
    config = report.config
    table = Table(title=(f"composer forward vs copy_ on {config['device']} ({config['dtype']}, "
                         f"B={count(config['batch'])}, T={count(config['seq_len'])}, "
                         f"median of {count(config['repeats'])})"), title_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False)
    for column in ("scheme", "D", "ms", "spread", "Mtok/s", "GB/s", "copy GB/s", "of copy", "fresh"):
        table.add_column(column, justify="left" if column == "scheme" else "right", no_wrap=True)
    rows = sorted(report.results, key=lambda row: (row["dim"], row["median_s"]))  # rank by median, per D
    noisy = [row for row in rows if row["spread"] > NOISY_SPREAD or row["copy_spread"] > NOISY_SPREAD]
    for row in rows:
        spread = Text(percent(row["spread"], 0), style="bold yellow" if row in noisy else "")
        table.add_row(
            row["scheme"], count(row["dim"]), f"{row['median_s'] * 1e3:.2f}", spread,
            f"{row['tokens_per_s'] / 1e6:.2f}", f"{row['bytes_per_s'] / 1e9:.1f}",
            f"{row['copy_bytes_per_s'] / 1e9:.1f}", number(row["fraction_of_copy"], 2),
            number(row["fresh_output_fraction_of_copy"], 2))
    lines = ["ranked by median time, fastest first; spread: interquartile range/median",
             "of copy: bytes the forward must move per second over a copy_'s (1.0 = bandwidth limit); "
             "fresh: the same when every call allocates its output"]
    if noisy:
        lines.append(f"noisy: {len(noisy)} of {len(rows)} timings spread more than {percent(NOISY_SPREAD, 0)}; "
                     f"the ranking may not hold: rerun with more --repeats (now {config['repeats']:,}) "
                     "on a quieter machine")
    table.caption = "\n".join(lines)
    table.caption_justify = "left"
    return table


def sweep_table(rows: list[dict]) -> Fitted:
    """The sweep table; below the width it needs its cells fold, never cut."""
    return Fitted(lambda: _sweep_table(rows))


def _sweep_table(rows: list[dict]) -> Table:
    """One row per configuration: positional parameters and the decay at the first and last offset."""
    last = rows[0]["last_offset"] if rows else 0
    table = figure_table("sweep: one inspect per configuration (--json for every figure)", "scheme",
                         ("D", "L", "base", "params", "overhead", "cos k=1", f"cos k={last}"),
                         caption="overhead = positional/token parameters (--json: a ratio)")
    for row in rows:  # rope under a scaling: "rope yarn:4"
        scaled = row.get("rope_scaling", "none") != "none"
        scheme = row["scheme"] + (f" {row['rope_scaling']}:{row['rope_factor']:g}" if scaled else "")
        table.add_row(
            scheme, count(row["dim"]), count(row["ctx"]), general(row["base"]), count(row["position_params"]),
            percent(row["overhead"]), number(row["first_offset_mean"]), number(row["last_offset_mean"]))
    return table
