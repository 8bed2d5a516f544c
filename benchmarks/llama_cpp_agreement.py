"""Every candidate measured through llama.cpp and through transformers, on the same ids (issue 39's agreement table).

SmolLM2-135M-Instruct Q4_1 (``POSEMB_REAL_MODELS``, else ~/.cache/posemb-real-models), at ``--length`` tokens
(default 16,384, 2x its trained 8,192): the first ids of the Python Language Reference (pydoc_data, which every
CPython ships) under the model's tokenizer are written to an ids file, then ``posemb extend MODEL --to L --ids FILE``
runs once per runtime (``--runtime llama.cpp``: the GGUF as stored, with the flags printed for each candidate;
``--runtime transformers``: the same file dequantized to float32). Per candidate: the loss within and beyond T, and
the copy probes' mean accuracy, from both runtimes, and their differences. A candidate llama.cpp cannot run (dynamic
NTK: no flag sets it) is recorded as left out, with why.

    cd benchmarks && PYTHONPATH=..:. nice -n 10 ../.venv/bin/python llama_cpp_agreement.py \
        --json recorded_llama_cpp_agreement.json
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from record import SMOLLM2 as MODEL
from record import machine, now, write


def figures(candidate: dict) -> dict | None:
    measured = candidate.get("measured")
    if measured is None:
        return None
    retrieval = measured["retrieval"]
    probes = retrieval["probes"]
    return {"within": measured["within"], "beyond": measured["beyond"],
            "copy_accuracy": float(np.mean([probe["accuracy"] for probe in probes])),
            "probes": len(probes), "seconds": measured["seconds"], "probe_seconds": measured.get("probe_seconds")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=16_384)
    parser.add_argument("--scalings", default=None, help="the candidates (default: extend's)")
    parser.add_argument("--json", help="write the record here")
    args = parser.parse_args()
    import pydoc_data.topics as topics

    from posemb_cli import api
    from posemb_cli.runtime import open_model

    text = "\n\n".join(topics.topics.values())
    ids = np.asarray(open_model(str(MODEL), runtime="llama.cpp").encode(text)[:args.length], dtype=np.int64)
    sides: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ids.npy"
        np.save(path, ids)
        for runtime in ("llama.cpp", "transformers"):
            flags = {"ids": str(path), "runtime": runtime, "no_plot": True}
            if args.scalings:
                flags["scalings"] = args.scalings
            report = api.extend(str(MODEL), to=args.length, **flags).to_dict()
            sides[runtime] = {"runtime": report["measurement"]["runtime"],
                              "left_out": report["measurement"].get("left_out"),
                              "candidates": {f'{c["scaling"]} x{c["factor"] or 1:g}': figures(c)
                                             for c in report["candidates"]}}
            print(f"{runtime}: done", flush=True)
    rows = []
    for name, theirs in sides["transformers"]["candidates"].items():
        ours = sides["llama.cpp"]["candidates"].get(name)
        row = {"candidate": name, "transformers": theirs, "llama.cpp": ours}
        if ours is not None and theirs is not None:
            row["difference"] = {key: ours[key] - theirs[key] for key in ("within", "beyond", "copy_accuracy")}
        rows.append(row)
        print(name, row.get("difference"), flush=True)
    write({"recorded": now(), "machine": machine(), "model": MODEL.name, "length": args.length,
           "ids": "the first ids of pydoc_data.topics under the model's tokenizer", "sides": sides, "rows": rows},
          args.json)


if __name__ == "__main__":
    main()
