"""`compare MODEL MODEL ...` for people: what each column is (its model, how it was found, its RoPE set and
scaling, and what the scaling is relative to), before the tables compare prints for schemes.

Reads the report's ``config``, each entry's ``source`` and ``column_keys``; computes nothing new.
"""

from __future__ import annotations

from rich.text import Text

from posemb_cli.render.fit import KeyValues
from posemb_cli.render.format import count, general
from posemb_cli.run.report import CompareReport

__all__ = ["columns_block", "models_header"]


def models_header(report: CompareReport) -> Text:
    """The run's shared settings in one line: columns, batch, device, dtype, seed."""
    config = report.config
    text = Text("posemb compare", style="bold")
    columns = len(report.results)
    models = len(config.get("models") or ())
    text.append(f"  {columns} column{'s' if columns != 1 else ''} of {models} model{'s' if models != 1 else ''}, "
                f"B={count(config['batch'])} {config['device']}/{config['dtype']} seed={config['seed']}", style="dim")
    return text


def _rope(source: dict) -> str:
    scaling = source.get("rope_type_in_file", source.get("rope_type"))
    scaling = "none" if scaling in ("default", "none") else scaling
    return f"base {general(source.get('rope_theta'))}, scaling {scaling}"


def _lines(keys: dict, source: dict, named: str | None) -> list[str]:
    config = keys["config"]
    lines = [] if named is None else [named]
    attends = source.get("attends_to") or {}
    distance = attends.get("distance") or config["ctx"]
    shape = f"D={count(config['dim'])}"
    if "rope_type" in source:
        shape += f" (rotary features of one head), distances<{count(distance)}, {_rope(source)}"
    else:
        shape += f" ctx={count(config['ctx'])}, {config.get('scheme') or source.get('kind')}"
    lines.append(shape)
    scaling = keys.get("scaling")
    if scaling is not None:
        lines.append(scaling["relative_to"])
    return lines


def columns_block(report: CompareReport) -> KeyValues:
    """One group of rows per column: its label, then what it is (the model and how it was found, where it differs
    from the column before)."""
    grid = KeyValues()
    said = None
    for result, keys in zip(report.results, report.column_keys or [], strict=True):
        source = result.source.source() if result.source is not None else {}
        resolved = source.get("resolved") or {}
        named = f"{resolved.get('name')}: {resolved.get('found')}" if resolved else None
        lines = _lines(keys, source, None if named == said else named)
        said = named
        for index, line in enumerate(lines):
            bold = index == 0 and named is not None and line == named
            grid.add_row(f"  {keys['label']}" if index == 0 else "", Text(line, style="bold" if bold else ""))
    return grid
