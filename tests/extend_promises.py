"""Every conclusion an ``extend --json`` document prints, checked by brute force: each pair's class by a plain loop
over its frequencies, each share by summing the heads' entries, the ranking by sorting under the rule as written
here (the predicted change over the window, lowest first), the recommendation for the situation it names (the
first for fine-tuning; else the publisher's recipe, else the first candidate needing no training within the first's
interval), and every "needs no extension" against the lengths it rests on."""

from __future__ import annotations

import math

SCALINGS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
FINE_TUNING = ("no", "beyond 2x", "yes")


def loop_class(theta: float, theta_new: float, trained: int, distance: int) -> str:
    if trained * theta < 2 * math.pi and distance * theta_new > trained * theta * (1 + 1e-9):
        return "extrapolated"
    if theta_new < theta * (1 - 1e-9):
        return "compressed"
    if theta_new > theta * (1 + 1e-9):
        return "sped_up"
    return "unchanged"


def _mean(values: list[float]) -> float:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return sum(finite) / len(finite) if finite else math.nan


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None or (a is None and math.isnan(b)) or (b is None and math.isnan(a))
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _rule_key(candidate: dict) -> tuple:
    value = candidate["predicted"]["loss_change"]["window"]["value"]
    figure = (1, 0.0) if value is None or not math.isfinite(value) else (0, round(value, 12))
    return (*figure, SCALINGS.index(candidate["scaling"]))


def check_extend_promises(doc: dict) -> None:
    extended = [one for one in doc["sets"] if one["needs_extension"]]
    assert extended, "a report has at least one set to extend"
    rows: dict[str, list[tuple[float, float, float]]] = {name: [] for name in doc["scalings"]}
    for one in doc["sets"]:
        trained, distance = one["trained_length"], one["attends_to"]["distance"]
        assert one["needs_extension"] == (distance > trained)
        if not one["needs_extension"]:
            assert one["candidates"] == [] and distance <= trained
            # kept as trained, no pair turns past the angles it turned through in training
            assert all(loop_class(theta, theta, trained, distance) == "unchanged"
                       for theta in one["published"]["inv_freq"])
            for candidate in doc["candidates"]:  # kept as trained in every candidate
                parameters = candidate["rope_parameters"]
                assert parameters[one["name"]] == one["published"]["rope_parameters"]
            continue
        assert distance == min(doc["to"], distance) and (one["attends_to"]["windowed"] or distance == doc["to"])
        assert [c["scaling"] for c in one["candidates"]] == doc["scalings"]
        for candidate in one["candidates"]:
            pairs = candidate["pairs"]
            assert [p["inv_freq_trained"] for p in pairs] == one["published"]["inv_freq"]
            classes = [loop_class(p["inv_freq_trained"], p["inv_freq"], trained, distance) for p in pairs]
            assert [p["class"] for p in pairs] == classes, candidate["scaling"]
            assert all(_close(p["compression"], p["inv_freq_trained"] / p["inv_freq"]) for p in pairs)
            assert candidate["counts"] == {name: classes.count(name)
                                           for name in ("unchanged", "compressed", "extrapolated", "sped_up")}
            if "sped_up" not in classes:
                assert candidate["speed_up_cost"] == 0 and candidate["sped_up_share"] == 0
            if candidate["weighted_by"] == "pairs":
                speed = math.fsum(math.log2(p["inv_freq"] / p["inv_freq_trained"])
                                  for p, c in zip(pairs, classes, strict=True) if c == "sped_up") / len(pairs)
                assert _close(candidate["speed_up_cost"], speed)
            first = next((i for i, p in enumerate(pairs) if trained * p["inv_freq_trained"] < 2 * math.pi),
                         len(pairs))
            assert one["critical_pair"] == first
            if candidate["weighted_by"] == "pairs":
                cost = math.fsum(math.log2(p["inv_freq_trained"] / p["inv_freq"])
                                 for p, c in zip(pairs, classes, strict=True) if c == "compressed") / len(pairs)
                figures = [(classes.count("extrapolated") / len(pairs), classes.count("compressed") / len(pairs),
                            cost)] * len(one["layers"])
            else:
                figures = [(head["extrapolated_share"], head["compressed_share"], head["compression_cost"])
                           for head in candidate["heads"]]
                assert len(figures) == len(candidate["heads"]) > 0
            assert _close(candidate["extrapolated_share"], _mean([f[0] for f in figures]))
            assert _close(candidate["compressed_share"], _mean([f[1] for f in figures]))
            rows[candidate["scaling"]] += figures
    for candidate in doc["candidates"]:
        figures = rows[candidate["scaling"]]
        assert _close(candidate["extrapolated_share"], _mean([f[0] for f in figures]))
        assert _close(candidate["compressed_share"], _mean([f[1] for f in figures]))
        assert _close(candidate["score"], _mean([f[2] for f in figures]) + candidate["speed_up_cost"])
        change = candidate["predicted"]["loss_change"]
        low, high = change["window"]["interval"]
        assert low <= change["window"]["value"] <= high
        if candidate["needs_fine_tuning"] not in FINE_TUNING:
            raise AssertionError(candidate["needs_fine_tuning"])
    ordered = sorted(doc["candidates"], key=_rule_key)
    assert [entry["scaling"] for entry in doc["ranking"]] == [c["scaling"] for c in ordered]
    assert [entry["rank"] for entry in doc["ranking"]] == list(range(1, len(ordered) + 1))
    best = ordered[0]
    if doc["recommendation"]["for"] == "no training":  # the situation: no training by default
        published = [c for c in ordered if c.get("published_recipe")]
        if published:
            best = published[0]
        else:
            for level in ("no", "beyond 2x"):
                pool = [c for c in ordered if c["needs_fine_tuning"] == level]
                if pool:
                    first_high = ordered[0]["predicted"]["loss_change"]["window"]["interval"][1]
                    if pool[0]["predicted"]["loss_change"]["window"]["value"] <= first_high:
                        best = pool[0]
                    break
        ordered = [best, *(c for c in ordered if c is not best)]
    if doc["source"]["kind"] == "gguf" and best["llama_cpp"] is None:  # llama.cpp runs it: the first it runs exactly,
        high = best["predicted"]["loss_change"]["window"]["interval"][1]  # where the prediction cannot tell them apart
        runnable = [c for c in ordered[1:] if c["llama_cpp"] is not None
                    and c["predicted"]["loss_change"]["window"]["value"] <= high]
        best = runnable[0] if runnable else best
    recommendation = doc["recommendation"]
    assert (recommendation["scaling"], recommendation["factor"], recommendation["rope_parameters"],
            recommendation["llama_cpp"]) == (best["scaling"], best["factor"], best["rope_parameters"],
                                             best["llama_cpp"])
    assert "lowest predicted mean loss over the whole window" in doc["rule"]


def pair_sums(heads_doc: dict, extend_doc: dict) -> int:
    """Assert that every head's extend shares are sums of ``posemb heads --json`` pair shares over the classes; the
    number of heads checked."""
    shares = {(layer["layer"], head["head"]): head["pair_share"] for layer in heads_doc["layers"]
              for head in layer["heads"]}
    checked = 0
    for one in extend_doc["sets"]:
        for candidate in one["candidates"]:
            classes = [pair["class"] for pair in candidate["pairs"]]
            for head in candidate["heads"]:
                share = shares[(head["layer"], head["head"])]
                for name in ("extrapolated", "compressed"):
                    total = math.fsum(s for s, c in zip(share, classes, strict=True) if c == name)
                    assert math.isclose(head[f"{name}_share"], total, rel_tol=1e-12, abs_tol=1e-15), (head, name)
                checked += 1
    return checked
