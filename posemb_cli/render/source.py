"""One line that says where a real model's position signal came from; computes nothing new."""

from __future__ import annotations

from rich.text import Text

from posemb_cli.run.report import SchemeReport


def source_line(result: SchemeReport) -> Text | None:
    """``from FILE: key NAME, rows OFFSET.. (why)`` for a checkpoint, ``from FILE: rope_type ...`` for a config."""
    source = None if result.source is None else result.source.source()
    if not source:
        return None
    text = Text("  source ", style="dim")
    if "side" in source:  # a learned relative-attention bias (T5)
        text.append(f"{source['checkpoint']}", style="bold")
        text.append(f"  key {source['key']} ({source.get('stored_dtype', '?')}): the {source['side']}'s bias, "
                    f"{source['relative_attention_num_buckets']} buckets up to distance "
                    f"{source['relative_attention_max_distance']} (config.json); no position table, "
                    f"neighbour similarity n/a")
        if source.get("other_bias_keys"):
            text.append(f"; --key picks another: {', '.join(source['other_bias_keys'])}")
        if source.get("token_key"):
            text.append(f"; vocab from {source['token_key']}")
    elif "key" in source:
        text.append(f"{source['checkpoint']}", style="bold")
        text.append(f"  key {source['key']} ({source.get('format', '?')}, {source.get('stored_dtype', '?')}), "
                    f"rows {source['position_offset']}..{source.get('stored_rows', 0) - 1} of "
                    f"{source.get('stored_rows', '?')}: {source.get('offset_reason', '')}")
        if source.get("token_key"):
            text.append(f"; vocab from {source['token_key']}")
    elif "rope_type" not in source:  # ALiBi or a fixed sinusoidal table, from the config's numbers
        text.append(f"{source['config']}", style="bold")
        heads = f", {source['heads']} heads" if source.get("heads") else ""
        text.append(f"  {source.get('model_type') or 'model'}: scheme {source.get('scheme')}, "
                    f"D {source.get('dim')}{heads}, context {source.get('max_position_embeddings') or '--ctx'}")
    else:
        text.append(f"{source['config']}", style="bold")
        text.append(f"  {source.get('model_type') or 'model'}: rope_type {source.get('rope_type')}, "
                    f"rope_theta {source.get('rope_theta'):g}, head_dim {source.get('head_dim')} "
                    f"({source.get('rotary_dim')} rotary, one head of {source.get('heads')} shown)")
        extras = [f"{source['not_rotated_features']} features not rotated" if source.get("not_rotated_features")
                  else "", f"layer type {source['layer_type']}" if source.get("layer_type") else "",
                  f"frequencies for length {source['frequencies_for_seq_len']}"
                  if source.get("frequencies_for_seq_len") else "",
                  f"longrope: {source['longrope_factors_in_use']} factors in use"
                  if source.get("longrope_factors_in_use") else "",
                  f"no RoPE in layers {source['layers_without_rope']}" if source.get("layers_without_rope") else "",
                  f"mrope_section {source['mrope_section']}" if source.get("mrope_section") else ""]
        if any(extras):
            text.append("; " + "; ".join(part for part in extras if part))
    if source.get("kind"):
        text.append(f"\n  kind {source['kind']} ({source.get('decided_by', '')})")
    if source.get("token_note"):
        text.append(f"; {source['token_note']}")
    grid = result.grid
    if grid:
        def means(key: str) -> str:
            return " ".join(f"{item['mean']:.3f}" for item in grid[key])

        text.append(f"\n  patch grid {grid['side']}x{grid['side']}: mean cos by row distance 1.. "
                    f"{means('by_row_distance')}; by column distance 1.. {means('by_column_distance')}")
    return text
