"""`posemb extend` for people: the model, each RoPE set as trained with its pairs' classes per candidate, the
candidates ranked under the stated rule (measured on the model beside it, with --text or --ids: ``extend_measured``),
the heads most at risk, and the recommended block; computes nothing new."""

from __future__ import annotations

import json

from rich.console import Group
from rich.text import Text

from posemb_cli.commands.extend.report import ExtendReport, ExtendSet
from posemb_cli.commands.extend.strips import PairStrips
from posemb_cli.core.wording import layer_ranges
from posemb_cli.render.fit import Fitted, figure_table
from posemb_cli.render.format import count, general, indented, number
from posemb_cli.run.documents import shows

__all__ = ["render_extend"]


def _header(report: ExtendReport) -> Group:
    model, source = report.model, report.source
    title = Text(f"posemb extend {source['model']} --to {count(report.to)}", style="bold")
    kv = model.get("kv_heads")
    shape = Text(f"{model.get('model_type')}: {model.get('layers')} layers, {model.get('heads')} query heads and "
                 f"{kv} key/value head{'' if kv == 1 else 's'} of {model.get('head_dim')} features; "
                 f"{source['read_from']} ({source['found']})", style="dim")
    lines = [title, shape, Text(report.weighted_note[0].upper() + report.weighted_note[1:], style="dim")]
    lines += [Text(f"Left out: {one['scaling']} ({one['why']})", style="yellow") for one in report.left_out]
    return Group(*lines)


def _set(one: ExtendSet, *, pictures: bool) -> Group:
    head = Text(f"RoPE set {one.name} (layers {layer_ranges(one.layers)}): base {general(one.base)}, "
                f"{count(one.rotary_pairs)} pairs", style="bold")
    lines: list = [head, indented(f"trained length T {count(one.trained_length)}: {one.trained_from}")]
    if not one.needs_extension:
        return Group(*lines, indented(f"{one.why}", style="green"))
    if one.reference_length != one.trained_length:
        lines.append(indented(f"candidates specified against R {count(one.reference_length)} "
                          f"({one.reference_from}), as transformers takes them"))
    critical = (f"critical pair {one.critical_pair} (T θ < 2π from it on)" if one.critical_pair < one.rotary_pairs
                else "every pair turned a full circle in training")
    lines.append(indented(f"{one.why}; {critical}"))
    if pictures:
        lines.append(PairStrips(one))
    return Group(*lines)


def _share(value: float) -> str:
    return number(value, 3)


def _half(part) -> float:
    return (part.high - part.low) / 2


def _caption(report: ExtendReport) -> str | None:
    """The intervals, the same for every candidate at this L: said once, under the table."""
    change = next((one.predicted for one in report.candidates if one.predicted is not None), None)
    if change is None:
        return None
    said = (f"predicted change of the mean loss, nats against the unscaled model within T; intervals "
            f"±{_half(change.window):.2f} window, ±{_half(change.within):.2f} within T, ±{_half(change.beyond):.2f} "
            "beyond; fitted on one model family (SmolLM2) up to 3x its trained length")
    standing = change.range
    if standing is None or standing.calibrated:
        return said
    return (f"{said}; outside that range ({'; '.join(standing.outside)}), so widened x{standing.widened_by:.3g} "
            "(docs/json-contract.md: the range rule)")


def _ranking(report: ExtendReport):
    """The candidates best first: the predicted changes (window, within, beyond T), the extrapolated share and the
    fine-tuning label (the compressed pairs show in the strips above, the attention factors in the JSON)."""
    table = figure_table("Candidates, best first", "scaling",
                         ("#", "factor", "window", "within", "beyond", "extrap.", "fine-tune"),
                         caption=_caption(report))
    for one in report.ranking:
        change = one.predicted
        predicted = ["-", "-", "-"] if change is None else [
            f"{part.value:+.2f}" for part in (change.window, change.within, change.beyond)]
        table.add_row(one.scaling, str(one.rank), "-" if one.factor is None else general(one.factor), *predicted,
                      _share(one.extrapolated_share), one.needs_fine_tuning)
    return table


def _at_risk(report: ExtendReport):
    table = figure_table("Heads most at risk", "scaling", ("layer", "head", "share", "of its weight on"))
    for one in report.sets:
        for found in one.candidates:
            for pick in found.at_risk:
                what = ("extrapolated pairs" if pick.by == "extrapolated" else
                        f"compressed (×{general(pick.mean_compression)})")
                table.add_row(found.scaling, str(pick.layer), str(pick.head), _share(pick.share), what)
    return table


def _sentence(report: ExtendReport) -> Text | None:
    best = report.recommendation["scaling"]
    for one in report.sets:
        for found in one.candidates:
            if found.scaling == best and found.at_risk:
                pick = found.at_risk[0]
                if pick.by == "extrapolated":
                    return Text(f"Under {best}, layer {pick.layer} head {pick.head} puts {pick.share:.2f} of its "
                                f"weight on pairs that {best} extrapolates beyond training.")
                return Text(f"Under {best}, layer {pick.layer} head {pick.head} puts {pick.share:.2f} of its weight "
                            f"on pairs {best} compresses (by {general(pick.mean_compression)} on average).")
    return None


def _block(parameters: dict) -> str:
    inner = ",\n".join(f"    {json.dumps(key)}: {json.dumps(value)}" for key, value in parameters.items())
    return '  "rope_parameters": {\n' + inner + "\n  }"


# The engines shown for each kind of input: a GGUF file runs in llama.cpp and Ollama, a config in the others.
_ENGINES = {True: ("llama_cpp", "ollama"), False: ("transformers", "vllm", "sglang")}


def _recommendation(report: ExtendReport) -> Group:
    best = report.recommendation
    factor = "" if best["factor"] is None else f", factor {general(best['factor'])}"
    if best.get("rope_needs_no_change"):
        why = best["why"].removeprefix("RoPE needs no change: ")
        lines: list = [Text("RoPE needs no change", style="bold green"), indented(why, style="dim")]
    else:
        said = best["why"] if best["evidence"] in best["why"] else f"{best['why']}; fine-tuning: {best['evidence']}"
        lines = [Text(f"Recommended: {best['scaling']}{factor}", style="bold green"), indented(said, style="dim")]
    engines = best.get("engines")
    if engines is None:  # the block as transformers 5 takes it, and llama.cpp's flags
        lines += [Text("transformers 5 rope_parameters:"), Text(_block(best["rope_parameters"]))]
        flags = best["llama_cpp"]
        lines.append(Text("llama.cpp: " + (" ".join(flags) if flags else best["llama_cpp_note"])))
        return Group(*lines)
    from posemb_cli.commands.extend.engine_lines import describe

    shown = {name: engines[name] for name in _ENGINES[report.source.get("kind") == "gguf"] if name in engines}
    lines.append(Text("In the engines that run this model (every engine: --json, recommendation.engines):"))
    for line in describe(shown):
        lines.append(indented(line.strip(), style="dim" if line.startswith("  ") else "", by=4 if
                              line.startswith("  ") else 2))
    written = report.written_config
    if written is not None:
        lines.append(Text(f"Wrote {written['path']}: the model's config.json with {written['scaling']} applied "
                          f"({len(written['ops'])} edits)", style="green"))
    return Group(*lines)


def render_extend(report: ExtendReport, *, pictures: bool = True) -> Group:
    parts: list = [_header(report)]
    for one in report.sets:
        parts += [Text(""), _set(one, pictures=pictures)]
    if not report.recommendation.get("rope_needs_no_change"):  # else one candidate, the published RoPE: no ranking
        parts += [Text(""), Fitted(lambda: _ranking(report)), Text(f"Rule: {report.rule}.", style="dim")]
    if report.measurement is not None:
        from posemb_cli.commands.extend.render_measured import measured_part

        parts += [Text(""), measured_part(report, pictures=pictures)]
    if any(found.at_risk for one in report.sets for found in one.candidates):
        if report.measurement is not None:
            parts.append(Text(""))
        parts.append(Fitted(lambda: _at_risk(report)))
        sentence = _sentence(report)
        if sentence is not None:
            parts.append(sentence)
    parts += [Text(""), _recommendation(report)]
    return Group(*parts)


@shows(ExtendReport)
def shown(report: ExtendReport) -> Group:
    """What the command prints for ``report``, with or without its pictures as it was asked."""
    return render_extend(report, pictures=report.pictures)
