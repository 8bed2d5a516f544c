"""What a window of Gemma 3 270M costs through llama.cpp here, and what its calibration would cost (issue 39).

Gemma 3 270M Q4_K_M (``POSEMB_REAL_MODELS``, else ~/.cache/posemb-real-models; gemma3 architecture, trained to
32,768) runs windows of the Python Language Reference's first ids (pydoc_data) at ``--lengths`` through
``posemb extend``'s llama.cpp runtime, with the flags printed for YaRN at 1.5x (``-c`` set to each window's length).
Each window's seconds (the forward and the scoring of every position, load excluded) are fitted by least squares as
t(L) = alpha L + beta L^2 (the weights and the output head grow with L, the global layers' attention with L^2), and
the fit gives what a window past T would take: at 1.5x (49,152) and 2x (65,536). A calibration case is two forwards
(the text's own ids, then the copy probes), per candidate (5 that llama.cpp runs) and per text (at least two).

    cd benchmarks && PYTHONPATH=..:. nice -n 10 ../.venv/bin/python llama_cpp_gemma_cost.py \
        --json recorded_llama_cpp_gemma_cost.json
"""

from __future__ import annotations

import argparse

import numpy as np

from record import REAL, machine, now, write

GEMMA = REAL / "gemma-3-270m-q4_k_m.gguf"
TRAINED = 32_768
CANDIDATES, TEXTS, FORWARDS = 5, 2, 2


def _fit(windows: list[dict]) -> tuple[float, float]:
    """Non-negative alpha and beta of t(L) = alpha L + beta L^2 by least squares (a term that would come out negative,
    timing noise, is held at 0 and the other refitted)."""
    lengths = np.asarray([w["length"] for w in windows], dtype=np.float64)
    seconds = np.asarray([w["seconds"] for w in windows], dtype=np.float64)
    design = np.stack([lengths, lengths ** 2], axis=1)
    (alpha, beta), *_ = np.linalg.lstsq(design, seconds, rcond=None)
    if alpha >= 0 and beta >= 0:
        return float(alpha), float(beta)
    keep = 0 if beta < 0 else 1
    (one,), *_ = np.linalg.lstsq(design[:, [keep]], seconds, rcond=None)
    return (float(one), 0.0) if keep == 0 else (0.0, float(one))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="2048,4096,8192,16384")
    parser.add_argument("--json", help="write the record here")
    args = parser.parse_args()
    import pydoc_data.topics as topics

    from posemb_cli import api
    from posemb_cli.commands.extend.measure import scalings_of
    from posemb_cli.runtime import open_model

    lengths = [int(one) for one in args.lengths.split(",")]
    report = api.extend(str(GEMMA), to=TRAINED * 3 // 2, scalings="yarn")
    (scaling,) = scalings_of(report)
    model = open_model(str(GEMMA), runtime="llama.cpp")
    ids = np.asarray(model.encode("\n\n".join(topics.topics.values())), dtype=np.int64)
    windows = []
    for length in lengths:
        found = model.token_losses(ids[:length], scaling)
        windows.append({"length": length, "seconds": found.seconds, "load_seconds": found.load_seconds,
                        "mean_loss": float(found.losses.mean())})
        print(f"{length}: {found.seconds:.1f} s", flush=True)
    alpha, beta = _fit(windows)
    predicted = {str(length): alpha * length + beta * length ** 2 for length in (TRAINED * 3 // 2, TRAINED * 2)}
    calibration = {key: value * CANDIDATES * TEXTS * FORWARDS for key, value in predicted.items()}
    for key in predicted:
        print(f"a window of {int(key):,}: {predicted[key] / 60:.0f} min; the calibration at that length "
              f"({CANDIDATES} candidates x {TEXTS} texts x {FORWARDS} forwards): {calibration[key] / 3600:.1f} h")
    write({"recorded": now(), "machine": machine(), "model": GEMMA.name, "runtime": model.describe(),
           "llama_cpp_args": list(scaling.llama_cpp or ()), "windows": windows,
           "fit": {"alpha_seconds_per_token": alpha, "beta_seconds_per_token_squared": beta},
           "predicted_window_seconds": predicted,
           "calibration_seconds": calibration,
           "calibration": f"{CANDIDATES} candidates x {TEXTS} texts x {FORWARDS} forwards (the text, the probes)"},
          args.json)


if __name__ == "__main__":
    main()
