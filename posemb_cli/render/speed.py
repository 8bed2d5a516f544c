"""Rich tables for `posemb bench` and `posemb sweep`; computes nothing new."""

from __future__ import annotations

from rich.table import Table

from posemb_cli.render.format import general, number


def _count(value: int) -> str:
    for threshold, unit, suffix in ((10**9, 10**9, "G"), (10**6, 10**6, "M"), (10**4, 10**3, "k")):
        if value >= threshold:
            return f"{value / unit:.3g}{suffix}"
    return str(value)


def bench_table(report) -> Table:
    """One row per (scheme, dim): forward median and spread, rates, and the fraction of a copy."""
    config = report.config
    table = Table(title=(f"composer forward vs copy_ on {config['device']} ({config['dtype']}, "
                         f"B={config['batch']}, T={config['seq_len']}, median of {config['repeats']})"))
    for column in ("scheme", "D", "ms", "spread", "Mtok/s", "GB/s", "copy GB/s", "of copy", "fresh"):
        table.add_column(column, justify="left" if column == "scheme" else "right", no_wrap=column == "scheme")
    for row in report.results:
        table.add_row(
            row["scheme"], str(row["dim"]), f"{row['median_s'] * 1e3:.2f}", f"{row['spread'] * 100:.0f}%",
            f"{row['tokens_per_s'] / 1e6:.2f}", f"{row['bytes_per_s'] / 1e9:.1f}",
            f"{row['copy_bytes_per_s'] / 1e9:.1f}", number(row["fraction_of_copy"], 2),
            number(row["fresh_output_fraction_of_copy"], 2))
    table.caption = ("of copy: bytes the forward must move per second over a copy_'s (1.0 = bandwidth limit); "
                     "fresh: the same when every call allocates its output")
    return table


def sweep_table(rows: list[dict]) -> Table:
    """One row per configuration: positional parameters and the decay at the first and last offset."""
    table = Table(title="sweep: one inspect per configuration (--json for every figure)")
    last = rows[0]["last_offset"] if rows else 0
    for column in ("scheme", "D", "L", "base", "params", "overhead", "cos k=1", f"cos k={last}"):
        table.add_column(column, justify="left" if column == "scheme" else "right", no_wrap=True)
    for row in rows:
        table.add_row(
            row["scheme"], str(row["dim"]), str(row["ctx"]), f"{row['base']:g}", _count(row["position_params"]),
            general(row["overhead"]), number(row["first_offset_mean"], 3), number(row["last_offset_mean"], 3))
    return table
