"""Rules on a learned position table read from a checkpoint, against the model's reading (its config).

Id: table-short.
"""

from __future__ import annotations

from posemb_cli.commands.doctor.report import Finding
from posemb_cli.sources.model.reading import ModelReading

__all__ = ["table_findings"]


def table_findings(reading: ModelReading | None, rows: int, offset: int, key: str) -> list[Finding]:
    """Findings about a table of ``rows`` usable rows (after ``offset`` leading rows no position uses)."""
    if reading is None:
        return [Finding("no-config", "info", f"no config.json beside the checkpoint: table {key!r} ({rows} usable "
                                             "rows) has nothing to be checked against",
                        "put the model's config.json next to the weights")]
    maximum = reading.context
    if maximum is None or rows >= maximum:
        return []
    skipped = f" ({offset} leading rows are reserved)" if offset else ""
    return [Finding("table-short", "error",
                    f"table {key!r} serves {rows} positions{skipped}, fewer than max_position_embeddings {maximum}: "
                    f"position {rows} and beyond have no row",
                    f"set max_position_embeddings to {rows}, or resize the table to {maximum + offset} rows",
                    key="max_position_embeddings")]
