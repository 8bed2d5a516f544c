"""The oracle of a measured loss: transformers' own forward with ``labels``, one position at a time.

For each position p of the window, the labels are -100 (ignored) everywhere but at p + 1, so the
mean loss transformers returns is the loss of predicting token p + 1 from tokens 0..p, in the full
window (so dynamic NTK sees the window's length, as in the measurement). The model is loaded from
the saved safetensors directory with the scaling's ``rope_parameters`` in its config, with eager
attention (another attention path than the measurement's).
"""

from __future__ import annotations

import numpy as np
import torch


def oracle_model(folder: str, rope_parameters: dict):
    import transformers

    config = transformers.AutoConfig.from_pretrained(folder)
    config.rope_parameters = dict(rope_parameters)
    return transformers.AutoModelForCausalLM.from_pretrained(folder, config=config, attn_implementation="eager",
                                                             dtype=torch.float32).eval()


def oracle_losses(folder: str, rope_parameters: dict, ids: np.ndarray) -> np.ndarray:
    """(L - 1,) the loss at each position, from L - 1 forwards of the whole window with one label each."""
    model = oracle_model(folder, rope_parameters)
    window = torch.as_tensor(ids, dtype=torch.long)[None]
    out = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny model's many small forwards: one thread is several times faster here
    try:
        with torch.no_grad():
            for position in range(window.shape[1] - 1):
                labels = torch.full_like(window, -100)
                labels[0, position + 1] = window[0, position + 1]
                out.append(model(input_ids=window, labels=labels, use_cache=False).loss.item())
    finally:
        torch.set_num_threads(threads)
    return np.array(out)


def text_positions(length: int, probes: list[dict], span: int = 16) -> list[int]:
    """The loss positions p of a window of ``length`` whose next token p + 1 lies in no probe's span, by a plain loop
    over the probes a document gives (``measured.retrieval.probes``: each span at ``first`` and at ``repeat``)."""
    starts = [start for probe in probes for start in (probe["first"], probe["repeat"])]
    return [p for p in range(length - 1) if not any(start <= p + 1 < start + span for start in starts)]
