"""`posemb extend`'s core: which scaling, which factor, for a model at a target length, from its own files.

The model is named once (``sources.naming.model_file``) and read once (its reading, and where it has weights
its heads' pair shares through ``posemb heads``' core). Each RoPE set is taken as trained
(``run.models.trained_rope``); each candidate scaling gives its frequencies there (``run.models.scaling_candidates``),
each pair is classed against the published ones (``measures.extension``) and weighted by the heads
(``commands.extend.weights``); the candidates are ranked (``measures.extension_ranking``) and the first is
recommended as a transformers 5 ``rope_parameters`` block and llama.cpp flags.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from posemb_cli.commands.extend.report import AtRisk, Candidate, ExtendReport, ExtendSet, PairFigure, SetCandidate
from posemb_cli.core.progress import Progress, or_silent
from posemb_cli.errors import PosembError
from posemb_cli.measures.extension_ranking import SCALINGS, ranked_by_prediction

if TYPE_CHECKING:
    from posemb_cli.commands.extend.publisher import Recipe
    from posemb_cli.commands.extend.weights import SetWeights
    from posemb_cli.run.models.scaling_candidates import SetCandidateSpec
    from posemb_cli.run.models.trained_rope import TrainedSet
    from posemb_cli.sources.model.reading import ModelReading
    from posemb_cli.sources.naming.model_file import ModelFile

FLAG = "MODEL"

__all__ = ["run_extend"]


def _refuse_target(model: str, reading: ModelReading, trained: list[TrainedSet], target: int) -> str | None:
    """None where a set needs extension; why RoPE needs no change where every set's layers attend within a window
    no longer than their trained length (the model runs at L as published); refused otherwise."""
    if reading.kind.kind != "rope":
        raise PosembError(f"{FLAG} {model}: this model uses {reading.kind.label} ({reading.kind.decided_by}); "
                          "extend stretches RoPE, and this model has none")
    if any(one.needs_extension for one in trained):
        return None
    longest = max(trained, key=lambda one: one.trained_length)
    if target <= longest.trained_length:
        raise PosembError(f"--to {target:,} is within the trained length {longest.trained_length:,} "
                          f"({longest.trained_from}): nothing to extend")
    return (f"RoPE needs no change: every RoPE set's layers attend within a window no longer than their trained "
            f"length ({longest.attends.why}), so no distance they see at {target:,} is new; run the model at "
            f"{target:,} with its published RoPE")


def _choose(asked: list[str] | None, reading: ModelReading, extended: list[TrainedSet]) -> tuple[list[str], list]:
    """(the candidates, in SCALINGS order; each default one left out, with why). Asked for, a scaling the model
    cannot load is refused."""
    from posemb_cli.sources.model.rope_loaders import cannot_load

    left_out: list[dict] = []
    chosen: list[str] = []
    for scaling in SCALINGS:
        if asked is not None and scaling not in asked:
            continue
        why = cannot_load(reading.model_type, scaling)
        if why is None and scaling == "longrope" and any(one.rope.scaling.kind != "longrope" for one in extended):
            why = "the model carries no LongRoPE factors, short_factor and long_factor"
        if why is None:
            chosen.append(scaling)
        elif asked is not None:
            raise PosembError(f"--scalings {scaling}: {why}")
        else:
            left_out.append({"scaling": scaling, "why": why})
    return chosen, left_out


def _at_risk(rows, top: int) -> list[AtRisk]:
    from posemb_cli.measures.head_bands import PICK_DECIMALS
    from posemb_cli.measures.head_bands import ranked as picks

    heads = [row for row in rows if row.head is not None]
    by = "extrapolated" if any(round(row.extrapolated_share, PICK_DECIMALS) > 0 for row in heads) else "compressed"
    value = {(row.layer, row.head): row for row in heads}
    chosen = picks([(row.layer, row.head, row.extrapolated_share if by == "extrapolated" else row.compression_cost)
                    for row in heads], top)
    out = []
    for layer, head, _ in chosen:
        row = value[(layer, head)]
        if by == "compressed" and not round(row.compression_cost, PICK_DECIMALS) > 0:
            continue
        out.append(AtRisk(layer, head, by, row.extrapolated_share if by == "extrapolated" else row.compressed_share,
                          row.mean_compression, row.compression_cost))
    return out


def _set_candidate(one: TrainedSet, spec: SetCandidateSpec, weights: SetWeights, model_parameters: dict,
                   top: int):
    from posemb_cli.commands.extend.weights import gather, summary
    from posemb_cli.measures.extension import classify_pairs

    pairs = classify_pairs(one.inv_freq, spec.inv_freq, trained_length=one.trained_length,
                           distance=one.attends.distance)
    shares, rows, layers = gather(weights, pairs)
    overall = summary(shares)
    figures = [PairFigure(i, float(one.inv_freq[i]), float(spec.inv_freq[i]), name, float(pairs.compression[i]),
                          float(pairs.trained_span[i]), float(pairs.target_span[i]))
               for i, name in enumerate(pairs.names())]
    by_heads = weights.by_heads
    return SetCandidate(
        scaling=spec.scaling, factor=spec.factor, attention_factor=spec.attention_factor,
        rope_parameters=model_parameters, set_parameters=spec.parameters, pairs=figures,
        weighted_by="heads" if by_heads else "pairs", extrapolated_share=overall.extrapolated,
        compressed_share=overall.compressed, mean_compression=overall.mean_compression,
        compression_cost=overall.cost, counts=pairs.counts(), layers=layers, heads=rows if by_heads else [],
        at_risk=_at_risk(rows, top) if by_heads else [], sped_up_share=overall.sped_up,
        speed_up_cost=overall.speed_cost), shares


def _weights(reading: ModelReading, tensors, path: str, trained: list[TrainedSet], progress: Progress):
    from posemb_cli.commands.extend.weights import heads_weights, pair_weights

    if tensors is None:
        return ({one.rope.name: pair_weights(one.layers, one.rope.rotary_dim // 2) for one in trained}, {},
                "pairs weighted equally: a config alone has no query and key weights to read")
    from posemb_cli.run.head_pairs import pair_shares

    shares = pair_shares(tensors, reading, path, progress=progress)
    return ({one.rope.name: heads_weights(shares.layers, one.layers) for one in trained}, shares.source,
            "each pair weighted by each head's pair share (its query and key weights, as posemb heads measures "
            "them)")


def run_extend(model: str | ModelFile, *, to: int, scalings: list[str] | None = None, factor: float | None = None,
               top: int = 3, progress: Progress | None = None, fine_tune: bool = False) -> ExtendReport:
    """Rank the candidate scalings of ``model`` at ``to`` positions and recommend the first.

    Args:
        model: a config.json, a model directory, a .gguf file, or a weights file with its config.json beside it, as
            named (MODEL) or already resolved (``sources.naming.model_file``).
        to: the target length L. scalings: the candidates (default: every one that applies). factor: the factor
            every candidate takes (default: the one that reaches L). top: heads listed as most at risk.
        fine_tune: the user will fine-tune at L: recommend the best prediction whatever its label (default: the
            publisher's recipe for L where the model card gives one, else the best candidate that needs no
            training where one lies within the prediction's interval of the best).
    """
    from posemb_cli.commands.extend.engines import for_reading
    from posemb_cli.commands.extend.evidence import fine_tuning
    from posemb_cli.commands.extend.llama_cpp import llama_cpp_flags
    from posemb_cli.commands.extend.loss_change import RULE, predicted_change
    from posemb_cli.commands.extend.publisher import read_recipe
    from posemb_cli.commands.extend.weights import concatenated, summary
    from posemb_cli.run.models.model_source import name_model
    from posemb_cli.run.models.scaling_candidates import candidate_spec, model_parameters
    from posemb_cli.run.models.trained_rope import trained_sets
    from posemb_cli.sources.naming.model_file import ModelFile, open_model

    progress = or_silent(progress)
    progress.stage("reading the model")
    named = model if isinstance(model, ModelFile) else name_model(model, config_needed=True)
    model = named.name
    reading, tensors = open_model(named)
    trained = trained_sets(reading, to, FLAG) if reading.kind.kind == "rope" else []
    keep = _refuse_target(model, reading, trained, to)
    if keep is not None:
        return _kept(model, named, reading, trained, to, keep)
    extended = [one for one in trained if one.needs_extension]
    chosen, left_out = _choose(scalings, reading, extended)
    weights, heads_source, weighted_note = _weights(reading, tensors, named.path, trained, progress)
    progress.stage("classifying pairs", total=len(chosen))
    specs = {scaling: [(one, candidate_spec(scaling, one, to, factor)) for one in extended] for scaling in chosen}
    per_set: dict[str, list[SetCandidate]] = {one.rope.name: [] for one in trained}
    candidates: list[Candidate] = []
    stretch = to / min(one.trained_length for one in extended)
    recipe = read_recipe(named.path, named.kind)
    for scaling in chosen:
        kept = {one.rope.name: one.parameters for one in trained}
        parameters = model_parameters(reading, {**kept, **{one.rope.name: spec.parameters
                                                            for one, spec in specs[scaling]}})
        parts = []
        for one, spec in specs[scaling]:
            found, shares = _set_candidate(one, spec, weights[one.rope.name], parameters, top)
            per_set[one.rope.name].append(found)
            parts.append(shares)
        overall = summary(concatenated(parts))
        first = specs[scaling][0][1]
        published = recipe is not None and recipe.covers(scaling, first.factor, to)
        level, evidence = fine_tuning(scaling, stretch, _recipe_words(recipe) if published else None)
        flags, note = llama_cpp_flags(specs[scaling], trained, to)
        change = predicted_change([(one, spec, weights[one.rope.name]) for one, spec in specs[scaling]], to,
                                  model={"model_type": reading.model_type, "layers": len(reading.layers),
                                         "hidden_size": reading.hidden_size})
        candidates.append(Candidate(scaling, first.factor, first.factor_rule, parameters, overall.extrapolated,
                                    overall.compressed, overall.mean_compression, overall.cost + overall.speed_cost,
                                    level, evidence, flags, note, rank=0, sped_up_share=overall.sped_up,
                                    speed_up_cost=overall.speed_cost, predicted=change, published_recipe=published))
        progress.advance()
    order = ranked_by_prediction([(one.scaling, one.predicted.window.value) for one in candidates
                                  if one.predicted is not None])
    candidates = [_ranked(one, order.index(one.scaling) + 1) for one in candidates]
    sets = [_set(one, per_set[one.rope.name]) for one in trained]
    source = _source(model, named, reading, tensors, heads_source)
    return ExtendReport(source=source, model=reading.model_dict(), to=to, factor=factor, scalings=chosen,
                        left_out=left_out, weighted_by="heads" if tensors is not None else "pairs",
                        weighted_note=weighted_note, sets=sets, candidates=candidates, rule=RULE,
                        recommendation={**_recommendation(candidates, trained, gguf=named.kind == "gguf",
                                                          engines=for_reading(specs, to, reading),
                                                          fine_tune=fine_tune, card=recipe, to=to),
                                        "publisher_recipe": None if recipe is None else recipe.to_dict()})


def _source(model: str, named: ModelFile, reading: ModelReading, tensors, heads_source: dict) -> dict:
    return {"model": model, "found": named.found, "kind": named.kind, "config": reading.path,
            "format": tensors.kind if tensors is not None else "config.json", "read_from": reading.read_from,
            "model_type": reading.model_type, "rules": list(reading.rules),
            **{key: heads_source[key] for key in ("norms", "fused_qkv", "qk_rows_unpermuted") if key in heads_source}}


def _kept(model: str, named: ModelFile, reading: ModelReading, trained: list[TrainedSet], to: int,
          why: str) -> ExtendReport:
    """The answer where RoPE needs no change: the published RoPE as the one candidate, and each engine's settings to
    run the model at L (its length fields raised where the engines size their tables or caps from them)."""
    from posemb_cli.commands.extend.engines import for_reading
    from posemb_cli.commands.extend.loss_change import RULE
    from posemb_cli.run.models.scaling_candidates import model_parameters

    parameters = model_parameters(reading, {one.rope.name: one.parameters for one in trained})
    kept = Candidate("none", None, "the published RoPE, kept", parameters, 0.0, 0.0, 1.0, 0.0, "no",
                     "RoPE is kept as trained: nothing to fine-tune for it", ["-c", str(to)],
                     "the file's own RoPE, as trained", rank=1)
    recommendation = _recommendation([kept], trained, gguf=named.kind == "gguf",
                                     engines=for_reading({"none": []}, to, reading), why=why)
    return ExtendReport(source=_source(model, named, reading, None, {}), model=reading.model_dict(), to=to,
                        factor=None, scalings=["none"], left_out=[], weighted_by="pairs",
                        weighted_note="no pair is weighted: no RoPE set needs extension", sets=[
                            _set(one, []) for one in trained], candidates=[kept], rule=RULE,
                        recommendation={**recommendation, "publisher_recipe": None, "rope_needs_no_change": True})


def _ranked(one: Candidate, rank: int) -> Candidate:
    import dataclasses

    return dataclasses.replace(one, rank=rank)


def _set(one: TrainedSet, candidates: list[SetCandidate]) -> ExtendSet:
    rope = one.rope
    return ExtendSet(name=rope.name, layers=list(one.layers), base=rope.base, rotary_pairs=rope.rotary_dim // 2,
                     layout=rope.layout, trained_length=one.trained_length, trained_from=one.trained_from,
                     reference_length=one.reference_length, reference_from=one.reference_from,
                     published={"rope_parameters": one.parameters, "attention_factor": one.attention_factor,
                                "inv_freq": one.inv_freq.tolist()},
                     attends_to=one.attends, needs_extension=one.needs_extension, why=one.why,
                     critical_pair=one.critical_pair, candidates=candidates)


def _why(best: Candidate, count: int) -> str:
    change = best.predicted
    if change is None:
        return f"ranked first of {count}"
    return (f"ranked first of {count}: the lowest predicted change of the mean loss over the window, "
            f"{change.window.value:+.3f} nats ({change.within.value:+.3f} within T, {change.beyond.value:+.3f} "
            f"beyond it; against the unscaled model within T); extrapolated share {best.extrapolated_share:.4g}")


def _recipe_words(recipe) -> str:
    original = "" if recipe.original is None else f" from {recipe.original:,}"
    return f"{recipe.scaling} x{recipe.factor:g}{original}, the model card {recipe.source}"


def _half(part) -> float:
    return (part.high - part.low) / 2


def _card_scaling(ranked: list[Candidate], card: Recipe | None, to: int | None) -> Candidate | None:
    """The candidate of the card's scaling, where L lies within the card's reach; else None."""
    if card is None or card.reach is None or to is None or to > card.reach:
        return None
    return next((one for one in ranked if one.scaling == card.scaling and one.predicted is not None), None)


def _situated(candidates: list[Candidate], fine_tune: bool, card: Recipe | None = None,
              to: int | None = None) -> tuple[list[Candidate], str | None]:
    """The candidates ranked for the user's situation, and why the first is not the prediction's first.

    Fine-tuning (``fine_tune``): the prediction's order. Else the publisher's recipe for L first, where the card
    gives one; else, where L lies within the card's recipe's reach at another factor, the candidate of the
    recipe's scaling (at the factor that reaches L) where its predicted change over the window lies within the
    interval of the best prediction; else the best candidate that needs no training (``no``, or failing that
    ``beyond 2x``) where it lies within that interval.
    """
    ranked = sorted(candidates, key=lambda one: one.rank)
    first = ranked[0]
    if fine_tune or first.predicted is None:
        return ranked, None
    recipe = next((one for one in ranked if one.published_recipe), None)
    if recipe is not None:
        if recipe is first:
            return ranked, None
        assert recipe.predicted is not None
        gap = recipe.predicted.window.value - first.predicted.window.value
        return [recipe, *(one for one in ranked if one is not recipe)], (
            f"{recipe.evidence}; the prediction ranks {first.scaling} first by {gap:.3f} nats "
            f"(interval ±{_half(first.predicted.window):.3f}), a figure posemb has not measured on this model: "
            f"--text FILE measures both")
    kind = _card_scaling(ranked, card, to)
    if kind is not None and kind.predicted is not None and kind.predicted.window.value <= first.predicted.window.high:
        assert card is not None  # a candidate of the card's scaling was found
        if kind is first:
            return ranked, None
        gap = kind.predicted.window.value - first.predicted.window.value
        return [kind, *(one for one in ranked if one is not kind)], (
            f"the model card's recipe for inputs up to {card.reach:,} is {_recipe_words(card)}: its scaling, at the "
            f"factor that reaches L (x{kind.factor:g}; --factor {card.factor:g} gives the card's own, static); the "
            f"prediction ranks {first.scaling} first by {gap:.3f} nats, within its interval "
            f"(±{_half(first.predicted.window):.3f}), a figure posemb has not measured on this model: --text FILE "
            "measures both")
    for level in ("no", "beyond 2x"):
        pool = [one for one in ranked if one.needs_fine_tuning == level and one.predicted is not None]
        if not pool:
            continue
        best = pool[0]
        assert best.predicted is not None
        if best is first or best.predicted.window.value > first.predicted.window.high:
            break
        gap = best.predicted.window.value - first.predicted.window.value
        return [best, *(one for one in ranked if one is not best)], (
            f"{first.scaling} ranks first by {gap:.3f} nats, within the prediction's interval "
            f"(±{_half(first.predicted.window):.3f}), but needs fine-tuning by the evidence at this stretch "
            f"({first.needs_fine_tuning}); {best.scaling} is the best that needs "
            f"{'none' if level == 'no' else 'it only past 2x'} (--fine-tune ranks for training)")
    return ranked, None


def _runnable(candidates: list[Candidate], gguf: bool) -> tuple[Candidate, str | None]:
    """The candidate to recommend, and why it is not the first where it is not.

    A GGUF file runs in llama.cpp: where the first candidate has no llama.cpp flags, the first one that has them
    is recommended instead, if the prediction cannot tell them apart (its predicted change over the window lies
    within the first's interval).
    """
    ranked = list(candidates)  # in the order to recommend them (``_situated``)
    first = ranked[0]
    if not gguf or first.llama_cpp is not None or first.predicted is None:
        return first, None
    for one in ranked[1:]:
        if one.llama_cpp is not None and one.predicted is not None and \
                one.predicted.window.value <= first.predicted.window.high:
            gap = one.predicted.window.value - first.predicted.window.value
            return one, (f"{first.scaling} ranks first by {gap:.3f} nats, within the prediction's interval "
                         f"(±{(first.predicted.window.high - first.predicted.window.low) / 2:.3f}); llama.cpp, which "
                         f"runs this GGUF file, has no flags for it, so the first candidate it runs exactly is "
                         "recommended")
    return first, None


def _recommendation(candidates: list[Candidate], trained: list[TrainedSet], *, gguf: bool = False,
                    engines=None, why: str | None = None, fine_tune: bool = False, card: Recipe | None = None,
                    to: int | None = None) -> dict:
    situated, because = _situated(candidates, fine_tune, card, to)
    best, instead = _runnable(situated, gguf)
    instead = instead if instead is not None else (because if best is situated[0] else None)
    context = trained[0].context
    extra = {} if engines is None else {"engines": engines(best)}  # per engine: exact, or what differs
    edit = extra.get("engines", {}).get("transformers", {}).get("ops") or []
    length = next((op["value"] for op in edit if op["op"] == "set" and op["key"].endswith("max_position_embeddings")
                   and op["key"].count(".") <= 1), None)
    note = (f"kept at the file's {context:,}: transformers' dynamic NTK and LongRoPE measure length against it"
            if length is None else f"set from the file's {context:,} to {length:,} by the config edit "
                                   "(engines.transformers): transformers' validation checks a factor against it, "
                                   "vLLM and SGLang size their tables from it, and a GGUF converted from the file "
                                   "gets it as its context_length (Ollama's cap)")
    return {"scaling": best.scaling, "factor": best.factor, "rope_parameters": best.rope_parameters,
            "max_position_embeddings": context if length is None else length,
            "max_position_embeddings_note": note,
            "llama_cpp": best.llama_cpp, "llama_cpp_note": best.llama_cpp_note,
            "needs_fine_tuning": best.needs_fine_tuning, "evidence": best.evidence,
            "why": why or (_why(best, len(candidates)) if instead is None else instead),
            "for": "fine-tuning" if fine_tune else "no training", **extra}
