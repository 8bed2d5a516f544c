"""What a measured candidate costs: posemb's window forward against a bare transformers forward (issue 34).

SmolLM2-135M-Instruct Q4_1 (``POSEMB_REAL_MODELS``, else ~/.cache/posemb-real-models), loaded once through
posemb's runtime (transformers, float32, CPU). Both sides run the same ids (a window of ``--length`` tokens
of the Python Language Reference as pydoc_data ships it) in alternating rounds, after one warm-up each:

- posemb: ``runtime.transformers_backend.losses.window_losses``, the path ``posemb extend --text`` runs per
  candidate: the body once, then the output head, the losses and the top-1 hits a chunk of positions at a
  time (no (L, V) logits held);
- bare: ``model(input_ids).logits`` and ``torch.nn.functional.cross_entropy(..., reduction="none")``, the
  losses at every position as a user's own loop would take them.

The ratio of the medians is the cost of posemb's measurement over the bare forward (target: at most 1.25).

    PYTHONPATH=. .venv/bin/python benchmarks/extend_cost.py --json benchmarks/recorded_extend_cost.json
"""

from __future__ import annotations

import argparse
import statistics
import time

from record import SMOLLM2 as MODEL
from record import machine, now, write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", help="write the record here")
    args = parser.parse_args()
    import pydoc_data.topics as topics

    import torch
    from posemb_cli.runtime.transformers_backend import loading, losses

    files = loading.locate(str(MODEL))
    config = loading.read_config(files)
    model = loading.load_model(files, config, torch.float32, None, None)
    tokenizer = loading.load_tokenizer(files)
    ids = tokenizer("\n\n".join(topics.topics.values()), verbose=False)["input_ids"][: args.length]
    window = torch.as_tensor(ids)

    def ours() -> None:
        losses.window_losses(model, window.numpy(), None)

    def bare() -> None:
        with torch.inference_mode():
            logits = model(input_ids=window[None], use_cache=False).logits[0, :-1].float()
            torch.nn.functional.cross_entropy(logits, window[1:], reduction="none")

    timings: dict[str, list[float]] = {"posemb": [], "bare": []}
    for call in (ours, bare):  # warm-up
        call()
    for _ in range(args.rounds):
        for name, call in (("posemb", ours), ("bare", bare)):
            started = time.perf_counter()
            call()
            timings[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) for name, values in timings.items()}
    write({
        "recorded": now(), "machine": machine(torch=torch.__version__, threads=torch.get_num_threads()),
        "model": MODEL.name, "length": args.length, "rounds": args.rounds, "seconds": timings,
        "median_seconds": medians, "ratio": medians["posemb"] / medians["bare"],
    }, args.json)


if __name__ == "__main__":
    main()
