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
coefficients are fitted by non-negative least squares on both changes at once; the check leaves one text
out (fit on the others, predict it), and, within each (text, L), compares the predicted and measured
order of the window's mean loss (Spearman's rho, the same best candidate, and whether each measured change
lies in the predicted interval: the fitted value plus or minus the 90th percentile of the fit's absolute
residuals).

    PYTHONPATH=. .venv/bin/python benchmarks/calibration_fit.py --json benchmarks/recorded_calibration_fit.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from posemb_cli.measures.loss_prediction import NEAR, features
from posemb_cli.measures.rank_agreement import rank_agreement

from record import SMOLLM2 as MODEL

TRAINED = 8192
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


def design(rows: list[dict]) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
    """The least-squares system: a row per (case, within | beyond) over columns a, b, c, then one intercept per
    (text, L) for the beyond rows (what that text's positions past T lose or gain with no damage)."""
    groups = sorted({(row["text"], row["length"], row["run"]) for row in rows})
    matrix, target = [], []
    for row in rows:
        matrix.append([row["displacement"], 0.0, row["temperature"]] + [0.0] * len(groups))
        target.append(row["within"])
        intercept = [1.0 if group == (row["text"], row["length"], row["run"]) else 0.0 for group in groups]
        matrix.append([row["displacement"], row["extrapolation"], row["temperature"]] + intercept)
        target.append(row["beyond"])
    return np.asarray(matrix), np.asarray(target), groups


def fit(rows: list[dict]) -> tuple[np.ndarray, float, float, float]:
    """Non-negative a, b, c; e, the mean of the groups' intercepts; the interval's half-widths within and beyond
    (the 90th percentile of the fit's absolute residuals within; beyond, with the intercepts' spread)."""
    import itertools

    matrix, target, groups = design(rows)
    best, best_error = np.zeros(matrix.shape[1]), np.inf
    free = list(range(3, matrix.shape[1]))
    for kept in itertools.product((False, True), repeat=3):  # which of a, b, c are free (the rest held at 0)
        columns = [i for i, keep in enumerate(kept) if keep] + free
        solution, *_ = np.linalg.lstsq(matrix[:, columns], target, rcond=None)
        if np.any(solution[: len(columns) - len(free)] < 0):
            continue
        full = np.zeros(matrix.shape[1])
        full[columns] = solution
        error = float(np.sum((matrix @ full - target) ** 2))
        if error < best_error:
            best, best_error = full, error
    intercepts = best[3:]
    residuals = np.abs(matrix @ best - target)
    within = float(np.quantile(residuals[0::2], COVERAGE))
    spread = np.abs(intercepts - intercepts.mean())
    beyond = float(np.quantile(residuals[1::2], COVERAGE) + np.quantile(spread, COVERAGE))
    return np.asarray([*best[:3], intercepts.mean()]), within, beyond


def predict(coefficients: np.ndarray, row: dict) -> tuple[float, float, float]:
    """(within, beyond, window mean) changes for one case."""
    a, b, c, e = coefficients
    within = a * row["displacement"] + c * row["temperature"]
    beyond = a * row["displacement"] + b * row["extrapolation"] + c * row["temperature"] + e
    share = TRAINED / row["length"]
    return within, beyond, share * within + (1 - share) * beyond


def check(train: list[dict], test: list[dict]) -> dict:
    """Fit on ``train``, predict ``test``: per (text, L), rho of the window order, the best, interval hits."""
    coefficients, half_within, half_beyond = fit(train)
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
    return {"coefficients": dict(zip("abce", coefficients.tolist(), strict=True)),
            "interval": {"within": half_within, "beyond": half_beyond},
            "groups": out, "inside": hits, "changes": total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="benchmarks/calibration")
    parser.add_argument("--json", help="write the record here")
    parser.add_argument("--near", type=int, default=NEAR, help="the near distances' horizon of the displacement")
    parser.add_argument("--held-out-text", default="changelog", help="the text kept out of the fit")
    parser.add_argument("--held-out-length", type=int, default=24_576, help="the length kept out of the fit")
    args = parser.parse_args()
    weights = pair_weights()
    rows = cases(Path(args.runs), weights, args.near)
    texts = sorted({row["text"] for row in rows})
    outside = [r for r in rows if r["text"] == args.held_out_text or r["length"] == args.held_out_length]
    record = {"cases": rows, "all": check(rows, rows),
              "held_out": {"text": args.held_out_text, "length": args.held_out_length,
                           **check([r for r in rows if r not in outside], outside)},
              "leave_one_text_out": {text: check([r for r in rows if r["text"] != text],
                                                 [r for r in rows if r["text"] == text]) for text in texts}}
    document = json.dumps(record, indent=1)
    if args.json:
        Path(args.json).write_text(document + "\n", encoding="utf-8")
    for name, result in [("all", record["all"]), ("held out", record["held_out"]),
                         *record["leave_one_text_out"].items()]:
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
