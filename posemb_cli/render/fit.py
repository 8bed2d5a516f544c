"""Tables that never cut a figure: the first layout whose columns fit the width the console gives.

Figure columns are ``no_wrap``, so a table's minimum width is what it needs to
show every figure whole. ``Fitted`` measures each candidate layout at render
time (the console's width, or the width a parent gives) and draws the first
that fits; when none does, the last one's rows are drawn as records (one
two-column table per row), and only below that width do cells fold (break
across lines) rather than being cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

__all__ = ["Fitted", "figure_table", "fits", "folding", "needed_width", "records"]

_UNBOUNDED = 100_000


def figure_table(title: str, label: str, figures: Sequence[str], caption: str | None = None) -> Table:
    """A table titled at the left: one text column ``label``, then right-aligned figure columns, none wrapping."""
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column(label, no_wrap=True)
    for name in figures:
        table.add_column(name, justify="right", no_wrap=True)
    return table


def needed_width(console: Console, options: ConsoleOptions, renderable) -> int:
    """Columns ``renderable`` needs to show every cell whole: a ``no_wrap`` column its widest cell, any
    other column its longest word (Rich's own minimum counts words even where a column may not wrap)."""
    unbounded = options.update(max_width=_UNBOUNDED)  # Measurement.get clamps to the width it is given
    if isinstance(renderable, Group):
        return max((needed_width(console, options, part) for part in renderable.renderables), default=0)
    if not isinstance(renderable, Table):
        return Measurement.get(console, unbounded, renderable).minimum
    total = renderable._extra_width  # box edges and column separators
    for index, column in enumerate(renderable.columns):
        cells = [column.header, *column.cells] if renderable.show_header else list(column.cells)
        sizes = [Measurement.get(console, unbounded, cell) for cell in cells]
        widest = max((size.maximum if column.no_wrap else size.minimum for size in sizes), default=0)
        total += max(widest, column.min_width or 0) + renderable._get_padding_width(index)
    return total


def fits(console: Console, options: ConsoleOptions, renderable) -> bool:
    """Whether ``renderable`` shows every figure whole within ``options.max_width``."""
    return needed_width(console, options, renderable) <= options.max_width


def folding(table: Table) -> Table:
    """``table`` with every column allowed to fold: cells break across lines rather than lose characters."""
    for column in table.columns:
        column.no_wrap = False
        column.overflow = "fold"
    return table


def records(table: Table) -> Group:
    """``table`` as one small two-column table per row (header, then cell), titled by the row's first cell.

    The narrowest layout there is: it needs only the widest header plus the widest cell.
    """
    columns = table.columns
    rows = [list(column.cells) for column in columns]
    parts: list = [] if table.title is None else [table.title]
    for index in range(len(rows[0]) if rows else 0):
        first = rows[0][index]
        record = Table(title=first if isinstance(first, (str, Text)) else None, title_justify="left",
                       show_header=False)
        record.add_column("", no_wrap=True)
        record.add_column("", justify="right", overflow="fold")
        for column, cells in zip(columns[1:], rows[1:], strict=True):
            header = column.header if isinstance(column.header, str) else ""
            record.add_row(" ".join(header.split()) or "", cells[index])
        parts.append(record)
    if table.caption is not None:
        parts.append(table.caption)
    return Group(*parts)


def _last_resort(console: Console, options: ConsoleOptions, table: Table):
    """``table`` whole when it fits; else its rows as records; else those records folding."""
    if fits(console, options, table):
        return table
    stacked = records(table)
    if all(fits(console, options, part) for part in stacked.renderables):
        return stacked
    return Group(*(folding(part) if isinstance(part, Table) else part for part in stacked.renderables))


class Fitted:
    """The first of ``layouts`` (each a function that builds one renderable) that fits the width.

    Args:
        layouts: builders from the widest layout to the narrowest; the last is used when none fits.
    """

    def __init__(self, *layouts: Callable[[], RenderableType]) -> None:
        if not layouts:
            raise ValueError("Fitted needs at least one layout")
        self.layouts: Sequence[Callable[[], RenderableType]] = layouts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for build in self.layouts[:-1]:
            renderable = build()
            if fits(console, options, renderable):
                yield renderable
                return
        last = self.layouts[-1]()
        if isinstance(last, Group):
            for part in last.renderables:
                yield _last_resort(console, options, part) if isinstance(part, Table) else part
            return
        yield _last_resort(console, options, last) if isinstance(last, Table) else last

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.layouts[-1]())
