"""One row per layer type of a model whose config gives each its own RoPE (Gemma 3); computes nothing new."""

from __future__ import annotations

from rich.table import Table

from posemb_cli.render.format import general, number
from posemb_cli.run.report import SchemeReport


def layer_types_table(result: SchemeReport) -> Table:
    """rope_type, theta, rotary width, context, frequency range, attention factor and cos(k=1) per layer type."""
    table = Table(title="RoPE sets, each over the distances its layers attend (the first is analysed above, the "
                        "others below)", title_justify="left")
    for name in ("layer type", "rope_type", "rope_theta", "rotary", "distances", "fastest", "slowest", "attention",
                 "mean cos k=1"):
        table.add_column(name, justify="left" if name in ("layer type", "rope_type") else "right")
    for entry in result.to_dict()["layer_types"]:  # each layer type's analysis in its JSON form
        source, bands = entry["source"], entry["bands"]
        first = next((row for row in entry["neighbour_similarity"] if row["offset"] == 1), None)
        table.add_row(str(entry["layer_type"]), str(source.get("rope_type_in_file", source["rope_type"])),
                      general(source["rope_theta"]), str(source["rotary_dim"]),
                      f"<{source.get('attends_to', {}).get('distance', source['max_position_embeddings']):,}",
                      general(bands[0]["inv_freq"]), general(bands[-1]["inv_freq"]),
                      general(entry.get("attention_factor")), number(first["mean"] if first else None))
    return table
