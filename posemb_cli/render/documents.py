"""Whole documents for people: the compare and inspect reports as one Rich group."""

from __future__ import annotations

from rich.console import Group, RenderableType

from posemb_cli.render.distance_penalty import left_out_line
from posemb_cli.render.fit import whole
from posemb_cli.render.format import header
from posemb_cli.render.layer_types import layer_types_table
from posemb_cli.render.pictures import pictures
from posemb_cli.render.position import compare_parts, inspect_parts
from posemb_cli.render.relative_bias import relative_bias_table
from posemb_cli.render.source import set_heading, source_line
from posemb_cli.render.spectrum import spectrum_parts
from posemb_cli.render.tables import (
    bands_table,
    decay_comparison,
    decay_detail,
    norms_table,
    params_table,
    shapes_table,
)
from posemb_cli.run.report import CompareReport, InspectReport, SchemeReport


def render_compare(report: CompareReport) -> Group:
    results = report.columns()  # each named by its column's label (compare MODEL ...)
    if report.column_keys is not None:  # real models: each column said once, then the same tables
        from posemb_cli.render.model_columns import columns_block, models_header

        top: list[RenderableType] = [models_header(report), columns_block(report)]
    else:
        sources = [line for line in map(source_line, results) if line is not None]  # a real model's table
        top = [header(report.config, "compare"), *sources]
    return Group(*top, shapes_table(results), params_table(results), decay_comparison(results),
                 *map(whole, compare_parts(results)))


def _signal_parts(result: SchemeReport, ctx: int, *, norms: bool = False) -> list[RenderableType]:
    """What a scheme's position signal does: decay, (row norms), bands over ``ctx``, the signal's figures, pictures."""
    parts: list[RenderableType] = []
    left_out = left_out_line(result, "neighbour_similarity", "heatmap")  # cosines of a bias per distance (ALiBi)
    if left_out is not None:
        parts.append(left_out)
    elif result.neighbour_similarity is not None:  # not defined for a bias per distance (T5)
        parts.append(decay_detail(result))
    if norms and result.table is not None:  # no additive table for a bias per distance
        parts.append(norms_table(result))
    if result.bands:
        parts.append(bands_table(result, ctx))
    parts.extend(part for part in (relative_bias_table(result),) if part is not None)
    parts.extend(inspect_parts(result))
    if result.pictures.get("heatmap") is not None:  # pictures were asked for (not --json, not --no-plot)
        parts.extend(pictures(result))
    return parts


def render_inspect(report: InspectReport) -> Group:
    result = report.result
    parts: list[RenderableType] = [header(report.config, f"inspect {result.scheme}", model=result.model),
                                   shapes_table([result]), params_table([result])]
    source = source_line(result)
    if source is not None:  # a real model's table or config
        parts.insert(1, source)
    parts.extend(_signal_parts(result, report.config["ctx"], norms=True))
    parts.extend(spectrum_parts(result))
    if result.layer_types:  # a model with one RoPE set per layer type: each over the distances its layers attend
        parts.append(layer_types_table(result))
        for name, other in result.layer_types[1:]:
            attends = other.source.source().get("attends_to", {}) if other.source is not None else {}
            distance = attends.get("distance") or report.config["ctx"]
            parts.append(set_heading(name, other, distance))
            parts.extend(_signal_parts(other, distance))
    return Group(*map(whole, parts))
