"""`posemb heads`'s core: every rotating layer's query and key weights, read one layer at a time, measured per head.

The layers are read as ``run.head_pairs`` reads them (``extend`` reads its pair shares the same way); each head's
figures are its pair shares, its band shares and its kernel at its RoPE set's distances.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from posemb_cli.commands.heads.report import HeadFigures, HeadsReport, LayerHeads, Pick
from posemb_cli.core.progress import Progress, or_silent
from posemb_cli.errors import FileError, PosembError
from posemb_cli.run.head_pairs import (
    default_distances,
    layer_figures,
    qk_source_of,
    read_layers,
    set_bands,
    workers,
)
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT

if TYPE_CHECKING:  # the readers load when a run starts: a refused flag costs nothing
    from posemb_cli.sources.model.reading import ModelReading
    from posemb_cli.sources.naming.model_file import ModelFile
    from posemb_cli.sources.weights.tensor_files import TensorFile

MAX_DISTANCES = 4096

__all__ = ["MAX_DISTANCES", "measure_heads", "parse_distances", "run_heads"]


def parse_distances(text: str) -> list[int]:
    """A comma list of whole distances from 0 to 2**40, each once, returned in increasing order."""
    parts = [part.strip() for part in text.split(",")]
    if not all(part.isascii() and part.isdigit() and len(part) <= 15 for part in parts):
        raise PosembError(f"--distances needs a comma list of whole numbers from 0, got {text!r}")
    values = [int(part) for part in parts]
    if len(set(values)) != len(values):
        raise PosembError(f"--distances: each distance may be given once, got {text!r}")
    if len(values) > MAX_DISTANCES or max(values) > MAX_COUNT:
        raise PosembError(f"--distances: at most {MAX_DISTANCES} distances, each at most {MAX_COUNT_TEXT}")
    return sorted(values)


def _layer(record, weights, qk, sets: dict, per_block: int, pool) -> LayerHeads:
    """One rotating layer's heads, from its q and k as applied (``weights``), the kernel at its set's distances."""
    from posemb_cli.measures.head_bands import band_shares, label

    described, bands, inv_freq = sets[record.rope_set]
    share, kernel = layer_figures(weights, per_block, pool, described, inv_freq, described.distances)
    high, beyond = band_shares(share, bands)
    group = qk.shape.heads // qk.shape.kv_heads
    heads = tuple(HeadFigures(head=h, kv_head=h // group, pair_share=share[h].tolist(), high_share=float(high[h]),
                              beyond_critical_share=float(beyond[h]), label=label(float(high[h]), float(beyond[h])),
                              kernel=kernel[h].tolist())
                  for h in range(qk.shape.heads))
    return LayerHeads(record.layer, described, weights.biases, heads)


def _refuse_kind(path: str, reading: ModelReading | None) -> None:
    if reading is None:
        raise FileError(path, "no config.json beside the weights; heads needs the model's config (heads, RoPE) from "
                              "there or a .gguf file's metadata")
    if reading.kind.kind != "rope":
        raise FileError(path, f"this model uses {reading.kind.label} ({reading.kind.decided_by}); heads reads the "
                              "query and key weights of RoPE models")


def run_heads(model: ModelFile | str, *, distances: list[int] | None = None, top: int = 5,
              progress: Progress | None = None) -> HeadsReport:
    """Measure every head of every rotating layer of the checkpoint.

    Args:
        model: the checkpoint as named (MODEL or ``--checkpoint``), or its path: a safetensors file or sharded
            directory, a .bin state dict, or a .gguf file.
        distances: the kernel's distances; default ``default_distances`` of the model's context.
        top: heads listed in each pick (most weight on high-frequency, and on beyond-critical pairs).
    """
    from posemb_cli.sources.naming.read import read_checkpoint_model
    from posemb_cli.sources.weights.tensor_files import open_tensor_file

    checkpoint = model if isinstance(model, str) else model.path
    tensors = open_tensor_file(checkpoint)
    reading = read_checkpoint_model(tensors, checkpoint)
    _refuse_kind(checkpoint, reading)
    assert reading is not None
    return measure_heads(tensors, reading, checkpoint, distances=distances, top=top, progress=progress)


def measure_heads(tensors: TensorFile, reading: ModelReading, checkpoint: str, *, distances: list[int] | None = None,
                  top: int = 5, progress: Progress | None = None) -> HeadsReport:
    """``run_heads`` on a checkpoint already opened and read (a RoPE model's); refusals are ``FileError``s about
    ``checkpoint``."""
    from posemb_cli.core.allocator import bounded_heap
    from posemb_cli.measures.head_bands import ranked
    from posemb_cli.sources.weights.qk_source import open_qk_source

    progress = or_silent(progress)
    qk = open_qk_source(tensors, reading, checkpoint)
    sets = {one.name: set_bands(one, reading, distances) for one in reading.rope_sets}
    distances = distances if distances is not None else default_distances(reading.context or 1)
    progress.stage(f"reading q and k of {len(qk.layers)} layers", total=len(reading.layers))
    # The heap keeps and reuses the temporaries' memory: fresh pages for each cost more than the arithmetic.
    with bounded_heap():
        measured = read_layers(reading, qk, sets, progress, workers(), _layer)
    layers = [LayerHeads(record.layer, None) if one is None else one
              for record, one in zip(reading.layers, measured, strict=True)]
    high = [(layer.layer, head.head, head.high_share) for layer in layers for head in layer.heads]
    beyond = [(layer.layer, head.head, head.beyond_critical_share) for layer in layers for head in layer.heads]
    return HeadsReport(source=qk_source_of(checkpoint, reading, qk, tensors.kind), model=reading.model_dict(),
                       distances=distances, sets=[one[0] for one in sets.values()], layers=layers,
                       most_high=[Pick(*entry) for entry in ranked(high, top)],
                       most_beyond=[Pick(*entry) for entry in ranked(beyond, top)])


