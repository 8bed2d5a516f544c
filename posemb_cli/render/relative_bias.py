"""A learned relative-attention bias as a table: per head, the bias at a few signed distances (reads only)."""

from __future__ import annotations

from rich.table import Table

from posemb_cli.run.report import SchemeReport

__all__ = ["relative_bias_table"]

_SHOWN = 7  # distances shown as columns: --json lists every one


def _pick(rows: list[dict]) -> list[dict]:
    """At most ``_SHOWN`` rows, evenly spread, always with distance 0 and both ends."""
    if len(rows) <= _SHOWN:
        return rows
    step = (len(rows) - 1) / (_SHOWN - 1)
    picked = {round(i * step) for i in range(_SHOWN)} | {next(i for i, r in enumerate(rows) if r["distance"] == 0)}
    return [rows[i] for i in sorted(picked)]


def relative_bias_table(result: SchemeReport) -> Table | None:
    """Per head: the bias at a few signed distances (key minus query) and the far bucket's value; None without."""
    profile = None if result.signal is None else result.signal.relative_bias
    if profile is None:
        return None
    rows = _pick(profile.by_distance)
    levels = profile.levels_off_at
    after = f", after +{levels['after']}" if levels["after"] is not None else " (the decoder sees no later key)"
    side = "bidirectional (encoder)" if profile.bidirectional else "looking back only (decoder)"
    table = Table(title=f"Relative-attention bias: {profile.buckets} buckets x {profile.heads} heads, {side}, "
                        f"max_distance {profile.max_distance}", title_justify="left",
                  caption=f"distance d = key−query; constant from d = {levels['before']}{after} on "
                          f"(the farthest bucket); --json lists {len(profile.by_distance)} distances",
                  caption_justify="left")
    table.add_column("head", justify="right")
    for row in rows:
        table.add_column(f"d={row['distance']}\nb{row['bucket']}", justify="right", no_wrap=True)
    for head in range(profile.heads):
        table.add_row(str(head), *(f"{row['bias'][head]:.3g}" for row in rows))
    return table
