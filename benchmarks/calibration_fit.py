"""Fit the loss prediction of ``posemb extend`` on the calibration set, and check it by leaving cases out (issue 34).

Reads the runs of ``benchmarks/calibration_measure.py`` (``--runs``, default benchmarks/calibration): per
(text, scaling, L) the loss at every position of one window of SmolLM2-135M (T = 8,192) and the inverse
frequencies the runtime held. A static scaling's window of L tokens also holds its windows of every
shorter L' (causal attention: the loss at p reads positions up to p only), so each static run gives a case
at L' = 10,240, 12,288, 14,336 and L; dynamic NTK sets its frequencies by the window's length, so its run
gives its own L only.

For each case: the measured change within T and beyond T (nats, against the unscaled model's mean loss
within T on the same ids, the probe spans left out) and the features of ``measures.loss_prediction``
(pair weights: the heads' mean pair shares, as ``posemb heads`` measures them on the same GGUF). The
coefficients are fitted by non-negative least squares on both changes at once; then, with a, b and c held, each
scaling type's correction δ (``KINDS``; of either sign, in both changes, times ``type_strength``: 2 (1 - 1/s) at
the case's stretch s). The record holds that fit, and the fit without corrections under ``uncorrected``, each
with its mean residual per type. The check leaves one text
out (fit on the others, predict it), and, within each (text, L), compares the predicted and measured
order of the window's mean loss (Spearman's rho, the same best candidate, and whether each measured change
lies in the predicted interval: the fitted value plus or minus the 90th percentile of the fit's absolute
residuals).

    PYTHONPATH=.:benchmarks .venv/bin/python benchmarks/calibration_fit.py --runs benchmarks/calibration_clean \
        --json benchmarks/recorded_calibration_fit.json
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
from posemb_cli.measures.loss_prediction import NEAR, features, type_strength
from posemb_cli.measures.rank_agreement import rank_agreement

from record import SMOLLM2 as MODEL

TRAINED = 8192
KINDS = ("linear", "ntk", "dynamic", "yarn", "llama3")  # the scaling types with a fitted correction (none: 0)
PREFIXES = (10_240, 12_288, 14_336, 16_384, 20_480, 24_576)
COVERAGE = 0.9


def pair_weights() -> np.ndarray:
    """(P,) the heads' mean pair share on the model (``posemb heads``)."""
    import posemb_cli as posemb

    layers = posemb.heads(str(MODEL)).to_dict()["layers"]
    shares = np.asarray([head["pair_share"] for layer in layers for head in layer["heads"]], dtype=np.float64)
    mean = shares.mean(0)
    return mean / mean.sum()


def cases(folder: Path, weights: np.ndarray, near: int) -> list[dict]:
    """Every (text, scaling, L) case of the runs: measured changes and features."""
    rows = [json.loads(line) for line in (folder / "runs.jsonl").open(encoding="utf-8")]
    trained = {row["length"]: np.asarray(row["inv_freq_built"]) for row in rows if row["scaling"] == "none"}
    theta = next(iter(trained.values()))
    out = []
    for row in rows:
        data = np.load(folder / f"{row['text']}-{row['scaling']}-{row['length']}.npz")
        base = None  # the unscaled run over the same ids (a longer one's first L ids where they are the same)
        for other in rows:
            if other["text"] == row["text"] and other["scaling"] == "none" and other["length"] >= row["length"]:
                found = np.load(folder / f"{other['text']}-none-{other['length']}.npz")
                if np.array_equal(found["ids"][: row["length"]], data["ids"]):
                    base = found
                    break
        if base is None:
            continue
        losses, mask = data["losses"].astype(np.float64), data["mask"][1:]
        positions = np.arange(1, row["length"])
        text = ~mask
        reference = float(base["losses"][: row["length"] - 1][text & (positions < TRAINED)].mean())
        static = not row["scaling"].startswith("dynamic")
        for length in (PREFIXES if static else (row["length"],)):
            if length > row["length"] or length <= TRAINED:
                continue
            keep = positions < length
            within = float(losses[text & keep & (positions < TRAINED)].mean())
            beyond = float(losses[text & keep & (positions >= TRAINED)].mean())
            found = features(theta, np.asarray(row["inv_freq_after"]), weights, trained_length=TRAINED,
                             target=length, attention_factor=row["attention_factor"], near=near)
            out.append({"text": row["text"], "scaling": row["scaling"], "length": length, "run": row["length"],
                        "within": within - reference, "beyond": beyond - reference, **found.to_dict()})
    return out


def kind(scaling: str) -> str:
    """A run's scaling type: its label less the factor (``llama3_2`` -> llama3, ``yarn1.5`` -> yarn)."""
    return re.sub(r"_?[0-9.]+$", "", scaling)


def stretch(row: dict) -> float:
    """The stretch a case's candidate applies: its factor (``yarn1.5`` -> 1.5), for dynamic NTK f L / T - (f - 1)
    at the run's length (it sets its frequencies by the window's)."""
    factor = float(re.findall(r"[0-9.]+$", row["scaling"])[0]) if row["scaling"] != "none" else 1.0
    if kind(row["scaling"]) == "dynamic":
        return max(1.0, factor * row["run"] / TRAINED - (factor - 1.0))
    return factor


def strength(row: dict) -> float:
    """What a type's correction is multiplied by in a case (``type_strength``: 0 at a stretch of 1, 1 at 2)."""
    return type_strength(stretch(row))


def design(rows: list[dict], corrected: bool) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
    """The least-squares system: a row per (case, within | beyond) over columns a, b, c, then (``corrected``) one
    correction per scaling type of ``KINDS`` in both rows (what the features miss of that type: a nats offset of
    either sign), then one intercept per (text, L) for the beyond rows (what that text's positions past T lose or
    gain with no damage)."""
    groups = sorted({(row["text"], row["length"], row["run"]) for row in rows})
    kinds = KINDS if corrected else ()
    matrix, target = [], []
    for row in rows:
        own = [strength(row) if kind(row["scaling"]) == name else 0.0 for name in kinds]
        matrix.append([row["displacement"], 0.0, row["temperature"]] + own + [0.0] * len(groups))
        target.append(row["within"])
        intercept = [1.0 if group == (row["text"], row["length"], row["run"]) else 0.0 for group in groups]
        matrix.append([row["displacement"], row["extrapolation"], row["temperature"]] + own + intercept)
        target.append(row["beyond"])
    return np.asarray(matrix), np.asarray(target), groups


def fit(rows: list[dict], corrected: bool) -> tuple[dict, float, float]:
    """Non-negative a, b, c; (``corrected``) then, with a, b and c held, each type's correction (of either sign:
    the nats the features leave at a stretch of 2, ``type_strength``); e, the mean of the groups' intercepts; the
    interval's half-widths within and beyond (the 90th percentile of the fit's absolute residuals
    within; beyond, with the intercepts' spread)."""
    import itertools

    matrix, target, groups = design(rows, corrected)
    kinds = KINDS if corrected else ()
    best, best_error = np.zeros(matrix.shape[1]), np.inf
    free = list(range(3, matrix.shape[1]))
    if corrected:  # two stages: the features' a, b, c as fitted without corrections, then what they leave per type
        plain, _, _ = fit(rows, False)
        held = np.asarray([plain["a"], plain["b"], plain["c"]])
        rest, *_ = np.linalg.lstsq(matrix[:, 3:], target - matrix[:, :3] @ held, rcond=None)
        best, best_error = np.concatenate([held, rest]), 0.0
    for kept in itertools.product((False, True), repeat=3) if not corrected else ():
        columns = [i for i, keep in enumerate(kept) if keep] + free
        solution, *_ = np.linalg.lstsq(matrix[:, columns], target, rcond=None)
        if np.any(solution[: len(columns) - len(free)] < 0):
            continue
        full = np.zeros(matrix.shape[1])
        full[columns] = solution
        error = float(np.sum((matrix @ full - target) ** 2))
        if error < best_error:
            best, best_error = full, error
    intercepts = best[3 + len(kinds):]
    residuals = np.abs(matrix @ best - target)
    within = float(np.quantile(residuals[0::2], COVERAGE))
    spread = np.abs(intercepts - intercepts.mean())
    beyond = float(np.quantile(residuals[1::2], COVERAGE) + np.quantile(spread, COVERAGE))
    present = {kind(row["scaling"]) for row in rows}
    corrections = {name: float(value) for name, value in zip(kinds, best[3:3 + len(kinds)], strict=True)
                   if name in present}
    model = {"a": float(best[0]), "b": float(best[1]), "c": float(best[2]), "e": float(intercepts.mean()),
             "corrections": corrections}
    return model, within, beyond


def predict(model: dict, row: dict) -> tuple[float, float, float]:
    """(within, beyond, window mean) changes for one case."""
    offset = model["corrections"].get(kind(row["scaling"]), 0.0) * strength(row)
    within = model["a"] * row["displacement"] + model["c"] * row["temperature"] + offset
    beyond = within + model["b"] * row["extrapolation"] + model["e"]
    share = TRAINED / row["length"]
    return within, beyond, share * within + (1 - share) * beyond


def check(train: list[dict], test: list[dict], corrected: bool) -> dict:
    """Fit on ``train``, predict ``test``: per (text, L), rho of the window order, the best, interval hits."""
    coefficients, half_within, half_beyond = fit(train, corrected)
    groups: dict[tuple, list[dict]] = {}
    for row in test:  # the candidates of one window: the same ids (one run length), the same L
        groups.setdefault((row["text"], row["length"], row["run"]), []).append(row)
    out, hits, total = [], 0, 0
    for (text, length, run), members in sorted(groups.items()):
        if len(members) < 3:
            continue
        predicted = [predict(coefficients, row) for row in members]
        measured = [(TRAINED / length) * row["within"] + (1 - TRAINED / length) * row["beyond"] for row in members]
        for row, guess in zip(members, predicted, strict=True):
            for key, value, half in (("within", guess[0], half_within), ("beyond", guess[1], half_beyond)):
                total += 1
                hits += int(abs(row[key] - value) <= half)
        names = [row["scaling"] for row in members]
        predicted_order = [names[i] for i in np.argsort([p[2] for p in predicted], kind="stable")]
        measured_order = [names[i] for i in np.argsort(measured, kind="stable")]
        out.append({"text": text, "length": length, "run": run, "candidates": names,
                    "predicted_window": [round(p[2], 4) for p in predicted],
                    "measured_window": [round(m, 4) for m in measured],
                    "rho": rank_agreement(measured_order, predicted_order).spearman,
                    "same_best": predicted_order[0] == measured_order[0],
                    # what taking the predicted best costs against the measured best, nats over the window
                    "regret": measured[names.index(predicted_order[0])] - min(measured)})
    return {"coefficients": coefficients,
            "interval": {"within": half_within, "beyond": half_beyond},
            "groups": out, "inside": hits, "changes": total}


def residual_by_type(rows: list[dict], corrected: bool) -> dict[str, float]:
    """The fit on every case: its mean residual (measured minus predicted change over the window) per type."""
    model, _, _ = fit(rows, corrected)
    out: dict[str, list[float]] = {}
    for row in rows:
        share = TRAINED / row["length"]
        measured = share * row["within"] + (1 - share) * row["beyond"]
        out.setdefault(kind(row["scaling"]), []).append(measured - predict(model, row)[2])
    return {name: float(np.mean(values)) for name, values in sorted(out.items())}


def evaluate(rows: list[dict], corrected: bool, held_out_text: str, held_out_length: int) -> dict:
    """The fit on every case, on all but a held-out text and length, and leaving each text out in turn."""
    texts = sorted({row["text"] for row in rows})
    outside = [r for r in rows if r["text"] == held_out_text or r["length"] == held_out_length]
    return {"all": check(rows, rows, corrected), "residual_by_type": residual_by_type(rows, corrected),
            "held_out": {"text": held_out_text, "length": held_out_length,
                         **check([r for r in rows if r not in outside], outside, corrected)},
            "leave_one_text_out": {text: check([r for r in rows if r["text"] != text],
                                               [r for r in rows if r["text"] == text], corrected) for text in texts}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="benchmarks/calibration_clean")
    parser.add_argument("--json", help="write the record here")
    parser.add_argument("--near", type=int, default=NEAR, help="the near distances' horizon of the displacement")
    parser.add_argument("--held-out-text", default="changelog", help="the text kept out of the fit")
    parser.add_argument("--held-out-length", type=int, default=24_576, help="the length kept out of the fit")
    args = parser.parse_args()
    weights = pair_weights()
    rows = cases(Path(args.runs), weights, args.near)
    record: dict = {"cases": rows}
    for corrected, into in ((True, record), (False, record.setdefault("uncorrected", {}))):
        into.update(evaluate(rows, corrected, args.held_out_text, args.held_out_length))
    document = json.dumps(record, indent=1)
    if args.json:
        Path(args.json).write_text(document + "\n", encoding="utf-8")
    print("residual by type, corrected:", record["residual_by_type"])
    print("residual by type, uncorrected:", record["uncorrected"]["residual_by_type"])
    for name, result in [("all", record["all"]), ("held out", record["held_out"]),
                         *record["leave_one_text_out"].items(),
                         *[(f"uncorrected {key}", value) for key, value in record["uncorrected"].items()
                           if key in ("all", "held_out")]]:
        print(f"{name}: coefficients {result['coefficients']}, interval {result['interval']}, "
              f"inside {result['inside']}/{result['changes']}")
        regrets = [group["regret"] for group in result["groups"]]
        print(f"  regret of the predicted best: median {np.median(regrets):.3f}, largest {max(regrets):.3f} nats")
        for group in result["groups"]:
            print(f"  {group['text']} L={group['length']} (of {group['run']}): rho {group['rho']:.2f} "
                  f"best {group['same_best']} regret {group['regret']:.3f} "
                  f"{list(zip(group['candidates'], group['predicted_window'], group['measured_window'], strict=True))}")


if __name__ == "__main__":
    main()
