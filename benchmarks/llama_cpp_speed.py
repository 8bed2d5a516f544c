"""A candidate's window through llama.cpp beside transformers, on the same ids, in one run (issue 39).

SmolLM2-135M-Instruct Q4_1 (``POSEMB_REAL_MODELS``, else ~/.cache/posemb-real-models): the first ``--length`` ids of
the Python Language Reference under the model's own tokenizer (pydoc_data, which every CPython ships), run as
``posemb extend --ids`` runs one candidate (YaRN at L / 8,192, the flags llama.cpp is printed), through each
runtime's ``token_losses`` in turn: llama.cpp (the GGUF file as stored, quantized; batches of 512) and transformers
(the same file dequantized to float32, as transformers loads a GGUF). Each side's seconds of the window (load
excluded, recorded apart), and the mean losses within and beyond T of both (they must agree within the
quantization llama.cpp keeps and transformers does not).

    cd benchmarks && PYTHONPATH=..:. ../.venv/bin/python llama_cpp_speed.py --length 16384 \
        --json recorded_llama_cpp_speed.json
"""

from __future__ import annotations

import argparse

import numpy as np

from record import SMOLLM2 as MODEL
from record import machine, now, write

TRAINED = 8192


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=16_384)
    parser.add_argument("--json", help="write the record here")
    args = parser.parse_args()
    import pydoc_data.topics as topics

    from posemb_cli import api
    from posemb_cli.commands.extend.measure import scalings_of
    from posemb_cli.runtime import open_model

    report = api.extend(str(MODEL), to=args.length, scalings="yarn")
    (scaling,) = scalings_of(report)
    text = "\n\n".join(topics.topics.values())
    llama = open_model(str(MODEL), runtime="llama.cpp")
    ids = np.asarray(llama.encode(text)[:args.length], dtype=np.int64)
    sides = {}
    for name, model in (("llama.cpp", llama), ("transformers", open_model(str(MODEL), device="cpu"))):
        found = model.token_losses(ids, scaling)
        sides[name] = {"runtime": model.describe(), "seconds": found.seconds, "load_seconds": found.load_seconds,
                       "within": float(found.losses[:TRAINED].mean()), "beyond": float(found.losses[TRAINED:].mean())}
        print(f"{name}: {found.seconds:.1f} s", flush=True)
    record = {"recorded": now(), "machine": machine(), "model": MODEL.name, "length": args.length,
              "scaling": scaling.name, "llama_cpp_args": list(scaling.llama_cpp or ()), "sides": sides,
              "ratio": sides["llama.cpp"]["seconds"] / sides["transformers"]["seconds"]}
    write(record, args.json)


if __name__ == "__main__":
    main()
