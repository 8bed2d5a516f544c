"""The calibration set of ``posemb extend``'s prediction: loss and copy retrieval by position, per scaling (issue 34).

SmolLM2-135M-Instruct Q4_1 (``POSEMB_REAL_MODELS``, else ~/.cache/posemb-real-models; llama
architecture, trained T = 8,192 tokens, RoPE base 100,000, 64 rotary features) runs one window of
L tokens through transformers on the CPU, in float32, per (text, scaling). The model is loaded
once; each scaling swaps in the rotary module transformers builds from the config with that
scaling's ``rope_parameters`` (what a fresh load would build), and its inverse frequencies and
attention factor after the forward are recorded beside the figures.

Each window is a text's first L tokens with copy probes written over it (the same ids for every
scaling of a text): a span of 16 random ids at position a, and the same span again at a + d, for
d on a grid from 32 to near L, repeats placed both within and beyond T. Random ids make copying
the only way to predict a repeat. One forward gives both measurements: the next-token loss at each
position (the probe spans excluded from the text's loss) and, per probe, top-1 accuracy and mean
loss over the repeat's scored tokens (its 2nd to 16th: the first cannot be known before it comes).

Every run is written as it ends to ``--out`` (one ``.npz`` of per-position losses and top-1 hits
per run, and ``runs.jsonl`` with each run's summary), so an interrupted queue keeps what it did.

    PYTHONPATH=. nice -n 19 .venv/bin/python benchmarks/calibration_measure.py --out benchmarks/calibration
    PYTHONPATH=. .venv/bin/python benchmarks/calibration_measure.py --out /tmp/c --length 2048 --only prose:none
    cd benchmarks && PYTHONPATH=..:. nice -n 10 ../.venv/bin/python calibration_measure.py --clean \
        --out calibration_clean --only prose:none,prose:llama3_2,prose:yarn2,code:none,code:llama3_2,code:yarn2
    cd benchmarks && PYTHONPATH=..:. nice -n 10 ../.venv/bin/python calibration_measure.py --clean \
        --out calibration_clean --length 24576 --only prose:none,code:none,prose:linear3,code:linear3
    cd benchmarks && PYTHONPATH=..:. nice -n 10 ../.venv/bin/python calibration_measure.py --clean \
        --out calibration_clean --length 24576 --only prose:yarn3,code:yarn3,code:ntk3,prose:dynamic1,code:dynamic1
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from record import SMOLLM2 as MODEL
from record import now

TRAINED, BASE, HEAD_DIM = 8192, 100_000.0, 64
SPAN = 16
SEED = 34
DISTANCES = (32, 128, 512, 1024, 2048, 3072, 4096, 6144, 8000, 10240, 12288, 14336, 16000, 20480, 24000)


def texts() -> dict[str, str]:
    """Three documents of different kinds, from files every CPython install ships."""
    import pydoc_data.topics as topics

    lib = Path(os.__file__).parent
    code_files = ["argparse.py", "dataclasses.py", "enum.py", "functools.py", "inspect.py"]
    return {
        "prose": "\n\n".join(topics.topics.values()),
        "code": "\n\n".join((lib / name).read_text(encoding="utf-8") for name in code_files),
        "changelog": "\n\n".join(Path(path).read_text(encoding="utf-8")
                                 for path in sorted(glob.glob(str(lib / "idlelib" / "NEWS*.txt")))),
    }


def scalings(length: int) -> dict[str, dict]:
    """Every candidate the calibration may run, by label: transformers 5's rope_parameters for it."""
    out: dict[str, dict] = {"none": {"rope_type": "default", "rope_theta": BASE}}
    for factor in (1.5, 2.0, 3.0, 4.0):
        tag = f"{factor:g}"
        out[f"linear{tag}"] = {"rope_type": "linear", "rope_theta": BASE, "factor": factor}
        out[f"ntk{tag}"] = {"rope_type": "default", "rope_theta": BASE * factor ** (HEAD_DIM / (HEAD_DIM - 2))}
        out[f"yarn{tag}"] = {"rope_type": "yarn", "rope_theta": BASE, "factor": factor,
                             "original_max_position_embeddings": TRAINED}
        out[f"llama3_{tag}"] = {"rope_type": "llama3", "rope_theta": BASE, "factor": factor, "low_freq_factor": 1.0,
                                "high_freq_factor": 4.0, "original_max_position_embeddings": TRAINED}
    for factor in (1.0, 2.0):
        out[f"dynamic{factor:g}"] = {"rope_type": "dynamic", "rope_theta": BASE, "factor": factor}
    return out


def probes(length: int, vocab: int) -> list[dict]:
    """Copy probes for a window of ``length``: first and repeat positions, non-overlapping, and the span's ids."""
    rng = np.random.default_rng(SEED)
    taken: list[tuple[int, int]] = []
    out = []

    def free(start: int) -> bool:
        return all(start + SPAN + 8 <= a or b + 8 <= start for a, b in taken)

    for distance in DISTANCES:
        for region in ("within", "beyond"):
            low, high = (distance + 64, TRAINED - SPAN) if region == "within" else (TRAINED, length - SPAN - 1)
            low, high = max(low, distance + 64), min(high, length - SPAN - 1)
            if high <= low:
                continue
            placed = 0
            for _ in range(400):
                if placed == 3:
                    break
                repeat = int(rng.integers(low, high))
                first = repeat - distance
                if first >= 16 and free(first) and free(repeat):
                    taken.extend([(first, first + SPAN), (repeat, repeat + SPAN)])
                    ids = rng.integers(1000, vocab, size=SPAN)
                    out.append({"distance": distance, "first": first, "repeat": repeat, "ids": ids.tolist()})
                    placed += 1
    return out


def window(tokens: list[int], length: int, vocab: int, *, clean: bool = False
           ) -> tuple[np.ndarray, list[dict], np.ndarray]:
    """The window's ids with the probes written over the text, the probes, and a mask of probe positions;
    ``clean``: the text's own ids, no probe (the loss of the ids given, as ``posemb extend`` now measures it)."""
    ids = np.asarray(tokens[:length], dtype=np.int64)
    if ids.size < length:
        raise SystemExit(f"the text has {ids.size} tokens, fewer than {length}")
    mask = np.zeros(length, dtype=bool)
    placed = [] if clean else probes(length, vocab)
    for probe in placed:
        for start in (probe["first"], probe["repeat"]):
            ids[start:start + SPAN] = probe["ids"]
            mask[start:start + SPAN] = True
    return ids, placed, mask


def forward(model, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(L - 1,) next-token losses and top-1 hits of one window."""
    import torch

    tokens = torch.as_tensor(ids)[None]
    with torch.inference_mode():
        hidden = model.base_model(input_ids=tokens, use_cache=False).last_hidden_state[0]
        head = model.get_output_embeddings()
        targets = tokens[0, 1:]
        losses = np.empty(targets.shape[0], dtype=np.float64)
        hits = np.empty(targets.shape[0], dtype=bool)
        for start in range(0, targets.shape[0], 1024):
            stop = min(start + 1024, targets.shape[0])
            logits = head(hidden[start:stop]).float()
            losses[start:stop] = torch.nn.functional.cross_entropy(logits, targets[start:stop],
                                                                   reduction="none").double().numpy()
            hits[start:stop] = (logits.argmax(-1) == targets[start:stop]).numpy()
    return losses, hits


def set_rotary(model, config, parameters: dict) -> tuple[list[float], float]:
    """Swap in the rotary module transformers builds for ``parameters``; its inv_freq and attention factor."""
    import copy

    edited = copy.deepcopy(config)
    edited.rope_parameters = dict(parameters)
    edited.rope_theta = parameters["rope_theta"]
    module = model.model.rotary_emb
    fresh = type(module)(config=edited)
    model.model.rotary_emb = fresh
    model.config = edited
    return fresh.inv_freq.tolist(), float(fresh.attention_scaling)


def summarise(losses: np.ndarray, hits: np.ndarray, mask: np.ndarray, placed: list[dict], length: int) -> dict:
    """The text's loss within and beyond T (probe positions excluded), and each probe's accuracy and loss."""
    text = ~mask[1:]
    positions = np.arange(1, length)
    within = text & (positions < TRAINED)
    beyond = text & (positions >= TRAINED)
    rows = []
    for probe in placed:
        if probe["repeat"] + SPAN > length:
            continue
        scored = slice(probe["repeat"], probe["repeat"] + SPAN - 1)  # predicting ids[repeat+1 .. repeat+SPAN-1]
        rows.append({"distance": probe["distance"], "first": probe["first"], "repeat": probe["repeat"],
                     "scored": [probe["repeat"] + 1, probe["repeat"] + SPAN],
                     "accuracy": float(hits[scored].mean()), "loss": float(losses[scored].mean())})
    return {"within": float(losses[within].mean()),
            "beyond": float(losses[beyond].mean()) if beyond.any() else None,
            "mean": float(losses[text].mean()), "probes": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for the runs")
    parser.add_argument("--length", type=int, default=16_384)
    parser.add_argument("--only", help="comma-separated text:scaling runs, in order (default: the queue)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--clean", action="store_true",
                        help="the text's own ids, no copy probe written over them (the records before this flag, "
                             "in benchmarks/calibration, all carry probes over the text)")
    args = parser.parse_args()
    import torch
    from posemb_cli.runtime.transformers_backend import loading

    if args.threads:
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = loading.locate(str(MODEL))
    config = loading.read_config(files)
    model = loading.load_model(files, config, torch.float32, None, None)
    tokenizer = loading.load_tokenizer(files)
    documents = texts()
    encoded = {name: tokenizer(text, verbose=False)["input_ids"] for name, text in documents.items()}
    catalogue = scalings(args.length)
    queue = args.only.split(",") if args.only else [
        f"{text}:{name}" for text in ("prose", "code")
        for name in ("none", "linear2", "yarn2", "dynamic1", "dynamic2", "ntk2", "yarn4", "llama3_2")]
    done = set()
    record = out / "runs.jsonl"
    if record.exists():
        done = {(row["text"], row["scaling"], row["length"]) for row in map(json.loads, record.open())}
    for item in queue:
        text, name = item.split(":")
        if (text, name, args.length) in done:
            continue
        ids, placed, mask = window(encoded[text], args.length, int(config.vocab_size), clean=args.clean)
        inv_freq, attention = set_rotary(model, config, catalogue[name])
        started = time.perf_counter()
        losses, hits = forward(model, ids)
        seconds = time.perf_counter() - started
        held = model.model.rotary_emb.inv_freq.tolist()
        stem = f"{text}-{name}-{args.length}"
        np.savez_compressed(out / f"{stem}.npz", losses=losses.astype(np.float32), hits=hits, ids=ids, mask=mask)
        row = {"text": text, "scaling": name, "length": args.length, "rope_parameters": catalogue[name],
               "inv_freq_built": inv_freq, "inv_freq_after": held, "attention_factor": attention,
               "seconds": seconds, "threads": torch.get_num_threads(), "tokens_in_text": len(encoded[text]),
               "probes_over_text": not args.clean,
               "recorded": now(),
               "load_average": os.getloadavg(), "python": platform.python_version(),
               **summarise(losses, hits, mask, placed, args.length)}
        with record.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
        print(f"{stem}: within {row['within']:.3f} beyond {row['beyond']} {seconds:.0f} s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
