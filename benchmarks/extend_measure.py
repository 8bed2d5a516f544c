"""Loss by position on the real SmolLM2-135M GGUF at twice its trained length, per scaling (issue 27).

SmolLM2-135M-Instruct Q4_1 (``POSEMB_REAL_MODELS``, else ~/.cache/posemb-real-models; llama
architecture, trained 8,192 tokens, RoPE base 100,000, 64 rotary features) runs one window of
``--length`` tokens (16,384 by default) through transformers on the CPU, in float32, once per
scaling: none, linear (factor 2), dynamic NTK (factor 2) and YaRN (factor 2, original 8,192).
Each scaling's frequencies are posemb's own (``core/schemes/rope_scaling``), and the runtime checks
that transformers' rotary module holds them before it measures.

The text: the Python Language Reference as CPython ships it for ``help()``
(``pydoc_data/topics.py`` of the interpreter running this script), its topics in the file's order
joined by blank lines, written to a UTF-8 file: one long English document of about 100,000 tokens,
so no separator enters the window.

Each scaling runs in a fresh process (``--one NAME``) under a small parent that reads its peak
resident set (``os.wait4``), set beside posemb's memory estimate. The record states whether the
papers' expectation held: none's loss beyond the trained length well above its loss within (by a
quarter or more); linear's loss within the trained length above none's; dynamic's and YaRN's within
closer to none's than linear's.

    PYTHONPATH=. .venv/bin/python benchmarks/extend_measure.py --length 2048 --split 1024   # a quick check
    PYTHONPATH=. nice -n 10 .venv/bin/python benchmarks/extend_measure.py --json benchmarks/recorded_extend_measure.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from record import SMOLLM2 as MODEL
from record import machine, now, write

TRAINED = 8192
FACTOR = 2.0
NAMES = ("none", "linear", "dynamic", "yarn")


def write_text(path: Path) -> dict:
    """The Python Language Reference of pydoc_data, as one UTF-8 document; where it came from."""
    import pydoc_data.topics as topics

    text = "\n\n".join(topics.topics.values())
    path.write_text(text, encoding="utf-8")
    return {"origin": f"pydoc_data/topics.py of Python {platform.python_version()} (the Language Reference "
                      "topics help() shows, in the file's order, joined by blank lines)",
            "topics": len(topics.topics), "characters": len(text)}


def scaling(name: str, length: int):
    """The scaling ``name`` for SmolLM2: transformers 5's rope_parameters and posemb's frequencies at ``length``."""
    from posemb_cli.core.schemes.rope_scaling import rope_frequencies
    from posemb_cli.core.settings import RopeScaling
    from posemb_cli.runtime import RotaryExpectation, Scaling

    base, head_dim = 100_000.0, 64
    parameters = {"none": {"rope_type": "default"},
                  "linear": {"rope_type": "linear", "factor": FACTOR},
                  "dynamic": {"rope_type": "dynamic", "factor": FACTOR},
                  "yarn": {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": TRAINED}}[name]
    kind = {"none": "none", "linear": "linear", "dynamic": "dynamic", "yarn": "yarn"}[name]
    _unscaled, inv_freq, attention = rope_frequencies(
        head_dim, base, RopeScaling(kind=kind, factor=FACTOR if kind != "none" else 1.0, original_ctx=TRAINED),
        seq_len=length)
    return Scaling(name, {"rope_theta": base, **parameters}, (RotaryExpectation(tuple(inv_freq), attention),))


class _Bar:
    """Progress to stderr: one line per stage, and its steps as they come."""

    def stage(self, name: str, total: int | None = None) -> None:
        self.name, self.total, self.done = name, total, 0
        sys.stderr.write(f"\n{name}" + (f" ({total} steps)" if total else "") + " ")
        sys.stderr.flush()

    def advance(self, done: int = 1) -> None:
        self.done += done
        sys.stderr.write(".")
        sys.stderr.flush()


def one(name: str, length: int, split: int, text: Path) -> dict:
    """Measure one scaling in this process; its measurement, the window and the memory estimate."""
    from posemb_cli.runtime import measure_scalings, open_model, text_window

    model = open_model(str(MODEL), device="cpu", dtype="float32")
    window = text_window(model, [str(text)], length)
    run = measure_scalings(model, window, [scaling(name, length)], trained_length=split, progress=_Bar())
    return run.to_dict()


def run_child(name: str, length: int, split: int, text: Path) -> dict:
    """One scaling in a fresh process: its figures, wall time and peak RSS."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, __file__, "--one", name, "--length", str(length), "--split", str(split),
                              "--text", str(text)], stdout=subprocess.PIPE, env=dict(os.environ))
    assert child.stdout is not None
    output = child.stdout.read()
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"scaling {name} failed with status {child.returncode}")
    figures = json.loads(output)
    figures["process"] = {"wall_s": time.perf_counter() - started, "peak_rss_bytes": usage.ru_maxrss * 1024}
    return figures


def expectations(measured: dict) -> dict:
    """The papers' expectation, checked on the figures: each statement and whether it held."""
    none, linear = measured["none"], measured["linear"]
    gap_linear = abs(linear["within"] - none["within"])
    return {
        "none_rises_beyond": {"statement": "none's mean loss beyond 8,192 is well above (by a quarter or more) its "
                                           "mean loss within", "held": none["ratio"] >= 1.25},
        "linear_raises_within": {"statement": "linear raises the loss within the trained length above none's",
                                 "held": linear["within"] > none["within"]},
        "dynamic_closest_within": {"statement": "dynamic's loss within stays closer to none's than linear's",
                                   "held": abs(measured["dynamic"]["within"] - none["within"]) < gap_linear},
        "yarn_closest_within": {"statement": "YaRN's loss within stays closer to none's than linear's",
                                "held": abs(measured["yarn"]["within"] - none["within"]) < gap_linear},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=16_384)
    parser.add_argument("--split", type=int, default=TRAINED,
                        help="where 'within' ends: the trained length 8,192; a quick check under it gives less")
    parser.add_argument("--json", help="write the record to this file")
    parser.add_argument("--one", choices=NAMES, help=argparse.SUPPRESS)
    parser.add_argument("--text", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.length, args.split, Path(args.text))))
        return
    if not MODEL.is_file():
        raise SystemExit(f"{MODEL.name} not found under POSEMB_REAL_MODELS")
    from posemb_cli.measures.rank_agreement import LOSS_NOISE, measured_ranking

    with tempfile.TemporaryDirectory() as folder:
        text = Path(folder) / "python-language-reference.txt"
        origin = write_text(text)
        runs = {name: run_child(name, args.length, args.split, text) for name in NAMES}
    measured = {name: runs[name]["measured"][name] for name in NAMES}
    first = runs[NAMES[0]]
    write({
        "recorded": now(), "machine": machine(),
        "model": MODEL.name, "trained_length": TRAINED, "split": args.split, "length": args.length, "factor": FACTOR,
        "runtime": first["runtime"], "text": {**origin, **first["text"], "files": ["python-language-reference.txt"]},
        "memory_estimate": first["memory"],
        "measured": measured,
        "process": {name: runs[name]["process"] for name in NAMES},
        "measured_ranking": list(measured_ranking({name: measured[name]["mean_loss"] for name in NAMES},
                                                  tolerance=LOSS_NOISE["float32"], prefer=NAMES)),
        "expectations": expectations(measured),
    }, args.json)


if __name__ == "__main__":
    main()
