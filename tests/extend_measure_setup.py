"""What the tests of `posemb extend --text/--ids` share: the tiny Llama's files, a steady clock, plain-loop oracles.

- ``tiny_files``: the tiny Llama of ``tests/tiny_language_model`` (trained 32 positions) saved with
  ``save_pretrained`` beside its tokenizer, the same model written as a GGUF file with gguf.GGUFWriter,
  a text written here, and the window's ids under the directory's own tokenizer.
- ``steady_runtime``: the runtime's clock and the free memory it reads made fixed, so that two runs give
  the same bytes (the seconds and the free bytes are the only figures that differ between two runs).
- ``forward_ids``: the ids the measurement ran, the window with the document's copy probes written over it
  (their layout redrawn from the document's seed and pool, and held to the document's positions).
- ``oracle_by_candidate``: each candidate's per-position losses from transformers' own forward with
  ``labels`` on the same ids and the same ``rope_parameters`` (``tests/loss_oracle``).
- ``plain_figures`` and ``plain_spearman``: the document's figures from those losses, in plain loops (the
  predictions of probe tokens left out, as the document's probes place them).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from tests.loss_oracle import oracle_losses
from tests.tiny_language_model import TRAINED, ids_of, tiny_llama_folder, tiny_llama_gguf, write_text

LENGTH = 96  # three times the trained length
ATOL = 2e-5  # float32 through two layers: sdpa against eager attention, chunked against whole logits


@dataclass(frozen=True)
class TinyFiles:
    folder: str
    gguf: str
    text: str
    tokenizer: object
    window: np.ndarray  # (LENGTH,) the text's first ids under the directory's tokenizer


def tiny_files(root) -> TinyFiles:
    model, tokenizer = tiny_llama_folder(root / "hf")
    (root / "gguf").mkdir()
    gguf_path = tiny_llama_gguf(root / "gguf" / "tiny.gguf", model, tokenizer)
    text = write_text(root / "text.txt")
    window = ids_of(tokenizer, open(text, encoding="utf-8").read())[:LENGTH]
    assert window.size == LENGTH
    return TinyFiles(str(root / "hf"), gguf_path, text, tokenizer, window)


class _Clock:
    """perf_counter in steps of a quarter second: each interval the runtime times is a whole number of steps."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 0.25
        return self.now


def steady_runtime(monkeypatch) -> None:
    """The runtime's timings and the free memory it reads, fixed (a fresh clock per call of this function)."""
    from posemb_cli.runtime.transformers_backend import model, placement

    monkeypatch.setattr(model, "time", _Clock())
    monkeypatch.setattr(placement, "free_bytes", lambda device: 64 << 30)


def forward_ids(window: np.ndarray, doc: dict) -> np.ndarray:
    """The ids every forward of the document ran: ``window`` with its copy probes written over it.

    The spans' ids are not in the document: the layout is drawn again from its seed and its pool (the window's
    distinct ids less ``pool.left_out``), and must stand where the document's probes say; then, in plain loops,
    each span is the same at its first and its repeat, and every other position holds the window's id.
    """
    from posemb_cli.measures.copy_probes import place_probes, write_probes

    retrieval = doc["candidates"][0]["measured"]["retrieval"]
    length, trained = doc["measurement"]["length"], doc["measurement"]["trained_length"]
    pool = np.array(sorted(set(window.tolist()) - set(retrieval["pool"]["left_out"])), dtype=np.int64)
    assert pool.size == retrieval["pool"]["distinct"]
    probes = place_probes(length, trained, pool, retrieval["seed"])
    assert [(one.distance, one.region, one.first, one.repeat) for one in probes] == [
        (one["distance"], one["region"], one["first"], one["repeat"]) for one in retrieval["probes"]]
    ids = write_probes(window, probes)
    span = retrieval["span"]
    inside = set()
    for one in retrieval["probes"]:
        assert ids[one["first"]:one["first"] + span].tolist() == ids[one["repeat"]:one["repeat"] + span].tolist()
        inside.update(range(one["first"], one["first"] + span))
        inside.update(range(one["repeat"], one["repeat"] + span))
    assert all(ids[p] == window[p] for p in range(length) if p not in inside)
    return ids


def oracle_by_candidate(doc: dict, folder: str, window: np.ndarray) -> dict[str, np.ndarray]:
    """Each candidate's (L - 1,) losses from transformers' forward with labels, its rope_parameters as the document
    gives them, on the safetensors model in ``folder``, on the ids given (``window``: the loss's forward; the
    probes run in one of their own, ``forward_ids``)."""
    assert forward_ids(window, doc) is not None  # the probes' layout holds too
    return {one["scaling"]: oracle_losses(folder, one["rope_parameters"], window) for one in doc["candidates"]}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def plain_figures(losses: np.ndarray, measured: dict, trained: int = TRAINED) -> dict:
    """Bucket means over the document's own ranges, within, beyond, ratio and mean, in plain loops, over every
    position of the ids given (a mean of none is NaN)."""
    text = set(range(losses.size))
    buckets = [_mean([float(losses[p]) for p in range(bucket["from"], bucket["to"]) if p in text])
               for bucket in measured["loss_by_position"]]
    within = _mean([float(losses[p]) for p in range(trained) if p in text])
    beyond = _mean([float(losses[p]) for p in range(trained, losses.size) if p in text])
    return {"buckets": buckets, "within": within, "beyond": beyond, "ratio": beyond / within,
            "mean_loss": _mean([float(losses[p]) for p in sorted(text)]), "positions": sorted(text)}


def plain_spearman(measured: list[str], predicted: list[str]) -> float:
    """1 - 6 sum d^2 / (n (n^2 - 1)) over the candidates' two ranks."""
    n = len(measured)
    squares = sum((measured.index(name) - predicted.index(name)) ** 2 for name in measured)
    return 1 - 6 * squares / (n * (n * n - 1))


def pairs_apart(measured: list[str], predicted: list[str]) -> list[dict]:
    """Every pair the two rankings order differently, in the predicted order, by brute force."""
    return [{"predicted_first": first, "measured_first": second}
            for first, second in itertools.combinations(predicted, 2) if measured.index(second) < measured.index(first)]
