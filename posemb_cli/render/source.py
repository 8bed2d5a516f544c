"""Where a real model's position signal came from, as ``key  value`` rows that wrap at word boundaries.

Reads the report's ``source``, ``model`` and ``layer_map`` only; computes nothing new.
A model with layers says what each group of equal layers does: ``0-4, 6-10: base
10,000, window 512``.
"""

from __future__ import annotations

from rich.text import Text

from posemb_cli.core.wording import layer_ranges
from posemb_cli.render.fit import KeyValues
from posemb_cli.render.format import general
from posemb_cli.run.report import SchemeReport

__all__ = ["layer_group_lines", "resolved_text", "set_heading", "source_line"]


def _rope_set(one: dict) -> str:
    text = f"base {general(one['rope_theta'])}"
    if one["scaling"] != "none":
        text += f", {one['rope_type']}" + (f" x{one['factor']:g}" if one["factor"] != 1 else "")
    if one["rotary_dim"] != one["head_dim"]:
        text += f", {one['rotary_dim']} of {one['head_dim']} features rotate"
    return text


def layer_group_lines(model: dict) -> list[str]:
    """One line per group of equal layers: ``0-4, 6-10: base 10,000, window 512``."""
    sets = {one["name"]: one for one in model.get("rope_sets", [])}
    lines = []
    for group in model.get("layer_groups", []):
        what = {"rope": "", "none": "no RoPE", "table": "the input's position table", "alibi": "ALiBi bias",
                "relative_bias": "relative-attention bias"}.get(group["position"], group["position"])
        if group["position"] == "rope":
            what = _rope_set(sets[group["rope_set"]]) if group["rope_set"] in sets else group["rope_set"]
        if group["window"] is not None:
            what += f", {'chunks' if group['attention'] == 'chunked_attention' else 'window'} {group['window']:,}"
        lines.append(f"{layer_ranges(group['layers'])}: {what}")
    return lines


def _model_rows(source: dict, model: dict) -> list[tuple[str, str]]:
    heads = f"{model['heads']} heads" if model.get("heads") else "heads unknown"
    if model.get("kv_heads") and model["kv_heads"] != model.get("heads"):
        heads += f" ({model['kv_heads']} key/value)"
    if model.get("head_dim"):
        heads += f" of {model['head_dim']}"
    parts = [model.get("model_type") or "model", f"{model['layers']} layers" if model.get("layers") else "",
             f"width {model['hidden_size']:,}" if model.get("hidden_size") else "", heads,
             f"vocabulary {model['vocab_size']:,}" if model.get("vocab_size") else ""]
    rows = [("model", ", ".join(part for part in parts if part))]
    groups = layer_group_lines(model)
    if len(groups) > 1:  # one group says no more than the rows below
        rows += [("layers" if index == 0 else "", line) for index, line in enumerate(groups)]
    rows += [("rule", rule) for rule in model.get("rules", [])]
    return rows


def _rope_rows(source: dict) -> list[tuple[str, str]]:
    scaling = source.get("rope_type_in_file", source.get("rope_type"))
    scaling = "none" if scaling in ("default", "none") else scaling
    shown = f"one head of {source.get('heads')}: {source.get('rotary_dim')} rotary features of {source.get('head_dim')}"
    if source.get("layer_type"):
        shown += f", RoPE set {source['layer_type']} (the set that attends farthest; the others follow below)"
    rows = [("analysed", shown)]
    attends = source.get("attends_to")
    if attends:
        rows.append(("distances", f"below {attends['distance']:,}: {attends['why']}"))
    rows.append(("rope", f"base {general(source.get('rope_theta'))}, scaling {scaling}"))
    extras = [f"frequencies for length {source['frequencies_for_seq_len']:,}"
              if source.get("frequencies_for_seq_len") else "",
              f"longrope: {source['longrope_factors_in_use']} factors in use"
              if source.get("longrope_factors_in_use") else "",
              f"mrope_section {source['mrope_section']}" if source.get("mrope_section") else ""]
    if any(extras):
        rows[-1] = ("rope", rows[-1][1] + "; " + "; ".join(part for part in extras if part))
    return rows


def _table_rows(source: dict) -> list[tuple[str, str]]:
    if "side" in source:  # a learned relative-attention bias (T5)
        rows = [("key", f"{source['key']} ({source.get('stored_dtype', '?')})"),
                ("bias", f"the {source['side']}'s, {source['relative_attention_num_buckets']} buckets up to "
                         f"distance {source['relative_attention_max_distance']} (config.json); no position table, "
                         "neighbour similarity n/a")]
        if source.get("other_bias_keys"):
            rows.append(("others", f"--key picks another: {', '.join(source['other_bias_keys'])}"))
    else:
        rows = [("key", f"{source['key']} ({source.get('format', '?')}, {source.get('stored_dtype', '?')})"),
                ("rows", f"{source['position_offset']}..{source.get('stored_rows', 0) - 1} of "
                         f"{source.get('stored_rows', '?')}: {source.get('offset_reason', '')}")]
    if source.get("token_key"):
        rows.append(("vocab", f"from {source['token_key']}"))
    return rows


def _named(source: dict) -> str | None:
    resolved = source.get("resolved")
    return None if not resolved else f"{resolved['name']}: {resolved['found']}"


def resolved_text(source: dict | None, *, file: str | None = None) -> Text | None:
    """How MODEL was resolved, in one line (``MODEL org/name: Hugging Face cache ...``), with the ``file`` read
    where the output names it nowhere else; None without MODEL."""
    named = _named(source or {})
    if named is None:
        return None
    return Text(f"MODEL {named}" + ("" if file is None else f"; read {file}"), style="dim")


def source_line(result: SchemeReport) -> KeyValues | None:
    """The source of a real model's signal as a two-column grid, or None for a scheme built from flags."""
    source = None if result.source is None else result.source.source()
    if not source:
        return None
    file = source.get("checkpoint") or source.get("config")
    read_from = f" ({source['read_from']})" if source.get("read_from", "config.json") != "config.json" else ""
    rows: list[tuple[str, str]] = [("source", f"{file}{read_from}")]
    if _named(source):
        rows.append(("named", str(_named(source))))
    if "key" in source:
        rows += _table_rows(source)
    elif "rope_type" not in source:  # ALiBi or a fixed sinusoidal table, from the config's numbers
        heads = f", {source['heads']} heads" if source.get("heads") else ""
        context = source.get("max_position_embeddings") or "--ctx"
        rows.append(("model", f"{source.get('model_type') or 'model'}: scheme {source.get('scheme')}, "
                              f"D {source.get('dim')}{heads}, context {context}"))
    if result.model is not None and "key" not in source:
        rows += _model_rows(source, result.model)
    if "rope_type" in source:
        rows += _rope_rows(source)
    if source.get("not_rotated_features"):
        rows.append(("", f"{source['not_rotated_features']} features of each head do not rotate"))
    if source.get("kind"):
        decided = source.get("decided_by", "")
        for rule in (result.model or {}).get("rules", []):  # said in their own rows above
            decided = decided.replace(f"; {rule}", "")
        rows.append(("kind", f"{source['kind']}: {decided}"))
    if source.get("token_note"):
        rows.append(("tokens", source["token_note"]))
    if result.grid:
        def means(key: str) -> str:
            return " ".join(f"{item['mean']:.3f}" for item in result.grid[key])  # type: ignore[index]

        rows.append(("patches", f"grid {result.grid['side']}x{result.grid['side']}: mean cos by row distance 1.. "
                                f"{means('by_row_distance')}; by column distance 1.. {means('by_column_distance')}"))
    grid = KeyValues()
    for key, value in rows:
        grid.add_row(f"  {key}" if key else "", Text(value, style="bold" if key == "source" else ""))
    return grid


def set_heading(name: str, result: SchemeReport, distance: int) -> Text:
    """The line that opens one more RoPE set of a model: its name, base, and the distances analysed and why."""
    source = result.source.source() if result.source is not None else {}
    attends = source.get("attends_to") or {}
    text = Text(f"RoPE set {name}", style="bold")
    text.append(f": base {general(source.get('rope_theta'))}, distances below {distance:,}"
                + (f" ({attends['why']})" if attends.get("why") else ""))
    return text
