"""Tables that never cut a figure: the first layout whose columns fit the width the console gives.

Figure columns are ``no_wrap``, so a table's minimum width is what it needs to show
every figure whole (and every word of a text column). ``Fitted`` measures each
candidate layout at render time (the console's width, or the width a parent gives)
and draws the first that fits, with fixed column widths where Rich's own shrinking
would cut a word. When none fits, the last one's figure columns are split over
several tables that repeat its first column, or its rows drawn as records (one
two-column table per row: one figure per line), whichever takes fewer lines; only
below the width of a record do cells fold (break across lines) rather than being cut.
``whole`` gives every bare table of a document that treatment.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

__all__ = ["Fitted", "KeyValues", "figure_table", "fits", "folding", "needed_width", "records", "whole"]

_UNBOUNDED = 100_000


def figure_table(title: str, label: str, figures: Sequence[str], caption: str | None = None) -> Table:
    """A table titled at the left: one text column ``label``, then right-aligned figure columns, none wrapping."""
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    table.add_column(label, no_wrap=True)
    for name in figures:
        table.add_column(name, justify="right", no_wrap=True)
    return table


def _spans(console: Console, options: ConsoleOptions, table: Table) -> list[tuple[int, int]]:
    """(need, want) of each column's content: its widest unbreakable piece (a figure of a ``no_wrap`` column,
    a word of any other: Rich's own minimum counts words even where a column may not wrap), and its widest cell."""
    unbounded = options.update(max_width=_UNBOUNDED)  # Measurement.get clamps to the width it is given
    spans = []
    for column in table.columns:
        cells = [column.header, *column.cells] if table.show_header else list(column.cells)
        sizes = [Measurement.get(console, unbounded, cell) for cell in cells]
        need = max((size.maximum if column.no_wrap else size.minimum for size in sizes), default=0)
        want = max((size.maximum for size in sizes), default=0)
        if column.width is not None:  # a fixed width (a bar): Rich draws it at that width
            need = want = column.width
        spans.append((max(need, column.min_width or 0), max(want, need, column.min_width or 0)))
    return spans


def needed_width(console: Console, options: ConsoleOptions, renderable) -> int:
    """Columns ``renderable`` needs to show every cell whole."""
    if isinstance(renderable, Group):
        return max((needed_width(console, options, part) for part in renderable.renderables), default=0)
    if not isinstance(renderable, Table):  # text wraps at its words, unless it may not wrap at all
        size = Measurement.get(console, options.update(max_width=_UNBOUNDED), renderable)
        return size.maximum if isinstance(renderable, Text) and renderable.no_wrap else size.minimum
    pads = sum(renderable._get_padding_width(index) for index in range(len(renderable.columns)))
    return renderable._extra_width + pads + sum(need for need, _ in _spans(console, options, renderable))


def fits(console: Console, options: ConsoleOptions, renderable) -> bool:
    """Whether ``renderable`` shows every figure whole within ``options.max_width``."""
    return needed_width(console, options, renderable) <= options.max_width


def _settled(console: Console, options: ConsoleOptions, table: Table) -> Table:
    """``table`` (which fits) with fixed column widths where Rich's own shrinking would cut a word or figure.

    Rich narrows the widest wrapping columns first, down past their longest word; here every column
    keeps what it needs and the room left goes to the columns that want more, in proportion.
    """
    spans = _spans(console, options, table)
    pads = [table._get_padding_width(index) for index in range(len(table.columns))]
    inner = options.max_width - table._extra_width
    rich = table._calculate_column_widths(console, options.update_width(inner))
    if all(width - pad >= need for width, pad, (need, _) in zip(rich, pads, spans, strict=True)):
        return table
    spare = inner - sum(pads) - sum(need for need, _ in spans)
    grow = [want - need for need, want in spans]
    for column, (need, _), more in zip(table.columns, spans, grow, strict=True):
        column.width = need + (spare * more // sum(grow) if sum(grow) else 0)
    return table


def folding(table: Table) -> Table:
    """``table`` with every column allowed to fold: cells break across lines rather than lose characters."""
    for column in table.columns:
        column.no_wrap = False
        column.overflow = "fold"
    return table


def _styled(text, style: str) -> Text:
    """A title or caption drawn on its own as its table draws it (a ``str`` there is read as markup)."""
    return Text.from_markup(text, style=style) if isinstance(text, str) else text


def _caption(table: Table) -> list:
    return [] if table.caption is None else [_styled(table.caption, "table.caption")]


def _justified(cell, justify: str):
    """A text cell that keeps its column's justification in a record (whose figures are right-justified)."""
    if justify == "right" or not isinstance(cell, (str, Text)):
        return cell
    text = Text(cell) if isinstance(cell, str) else cell.copy()
    text.justify = "left" if justify == "default" else justify  # type: ignore[assignment]
    return text


def records(table: Table) -> Group:
    """``table`` as one small two-column table per row (header, then cell), titled by the row's first cell.

    The narrowest layout there is: it needs only the widest header plus the widest cell.
    """
    columns = table.columns
    rows = [list(column.cells) for column in columns]
    parts: list = [] if table.title is None else [_styled(table.title, "table.title")]
    for index in range(len(rows[0]) if rows else 0):
        first = rows[0][index]
        record = Table(title=first if isinstance(first, (str, Text)) else None, title_justify="left",
                       show_header=False)
        record.add_column("", no_wrap=True)
        record.add_column("", justify="right", overflow="fold")
        for column, cells in zip(columns[1:], rows[1:], strict=True):
            header = column.header if isinstance(column.header, str) else ""
            record.add_row(" ".join(header.split()) or "", _justified(cells[index], column.justify))
        parts.append(record)
    return Group(*parts, *_caption(table))


def _part(table: Table, indices: list[int], *, first: bool) -> Table:
    """A copy of ``table`` with only the columns at ``indices``, titled if it is the first part, no caption."""
    part = copy.copy(table)
    part.columns = [copy.copy(table.columns[index]) for index in indices]
    for position, column in enumerate(part.columns):
        column._index = position
    part.title = table.title if first else None
    part.caption = None
    return part


def _even(items: list[int], parts: int) -> list[list[int]]:
    """``items`` in ``parts`` consecutive groups whose sizes differ by one at most."""
    size, more = divmod(len(items), parts)
    bounds = [sum(size + (i < more) for i in range(at)) for at in range(parts + 1)]
    return [items[bounds[at]:bounds[at + 1]] for at in range(parts)]


def columns_apart(console: Console, options: ConsoleOptions, table: Table) -> Group | None:
    """``table``'s columns after the first in as few consecutive groups as fit (as even as fit), each a table
    that repeats the first column, then its caption; None when one column beside the first does not fit."""
    def fit(group: list[int]) -> bool:
        return fits(console, options, _part(table, [0, *group], first=True))

    groups: list[list[int]] = []
    for index in range(1, len(table.columns)):
        if groups and fit([*groups[-1], index]):
            groups[-1].append(index)
        elif fit([index]):
            groups.append([index])
        else:
            return None
    if len(groups) < 2:
        return None
    even = _even(list(range(1, len(table.columns))), len(groups))
    groups = even if all(map(fit, even)) else groups
    parts: list = [_part(table, [0, *group], first=at == 0) for at, group in enumerate(groups)]
    return Group(*parts, *_caption(table))


def _lines(console: Console, options: ConsoleOptions, renderable) -> int:
    return len(console.render_lines(renderable, options, pad=False))


def _last_resort(console: Console, options: ConsoleOptions, table: Table):
    """``table`` whole when it fits; else its columns apart or its rows as records, whichever is shorter; else
    those records folding."""
    if fits(console, options, table):
        return _settled(console, options, table)
    stacked = records(table)
    candidates = [layout for layout in (columns_apart(console, options, table), stacked) if layout is not None
                  and all(fits(console, options, part) for part in layout.renderables)]
    if candidates:
        best = min(candidates, key=lambda layout: _lines(console, options, layout))
        return Group(*(_settled(console, options, part) if isinstance(part, Table) else part
                       for part in best.renderables))
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
                parts = renderable.renderables if isinstance(renderable, Group) else [renderable]
                for part in parts:
                    yield _settled(console, options, part) if isinstance(part, Table) else part
                return
        last = self.layouts[-1]()
        for part in (last.renderables if isinstance(last, Group) else [last]):
            yield _last_resort(console, options, part) if isinstance(part, Table) else part

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.layouts[-1]())


class KeyValues(Table):
    """Rows of ``key  words`` (a real model's source): prose, not figures, so it wraps at spaces and a word
    longer than the line (a path) folds, as text does; ``whole`` leaves it as it is."""

    def __init__(self) -> None:
        super().__init__(box=None, show_header=False, show_edge=False, padding=(0, 1), expand=False)
        self.add_column(style="dim", no_wrap=True)
        self.add_column(overflow="fold")


def whole(renderable: RenderableType) -> RenderableType:
    """``renderable`` with every table in it (in groups, at any depth) drawn by ``Fitted``: never a figure cut."""
    if isinstance(renderable, KeyValues):
        return renderable
    if isinstance(renderable, Table):
        return Fitted(lambda: renderable)
    if isinstance(renderable, Group):
        return Group(*(whole(part) for part in renderable.renderables), fit=renderable.fit)
    return renderable
