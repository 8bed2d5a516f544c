"""The query and key weights of a RoPE checkpoint's rotating layers, read one layer at a time and measured per head:
what ``posemb heads`` reports and ``posemb extend`` weights its pairs by (each head's pair shares).

The checkpoint's model is read once (``sources.read_model``); its rotating layers' weights come as
the runtime applies them (``sources.qk_weights``), each layer read once, one layer ahead of the one
being measured; each layer uses its own RoPE set's frequencies (as applied, at the set's analysed
context) and bands (``measures.head_bands``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.core.progress import Progress, or_silent

if TYPE_CHECKING:  # numpy and the readers load when a run starts: a refused flag costs nothing
    import numpy as np

    from posemb_cli.measures.head_bands import Bands
    from posemb_cli.sources.model.reading import ModelReading, RopeSet
    from posemb_cli.sources.weights.tensor_files import TensorFile

__all__ = ["PairShares", "SetBands", "default_distances", "layer_figures", "pair_shares", "qk_source_of",
           "read_layers", "set_bands", "workers"]


@dataclass(frozen=True)
class SetBands:
    """One RoPE set's pairs: the frequencies as applied, the critical pair and the high-frequency pairs.

    Attributes:
        training_context: T, the context the bands are drawn at; context_from: the field (or rule) that gave it.
        wavelengths: 2π / θ_f as applied (after any scaling), one per pair.
        attention_factor: the factor on cos and sin (s; the kernel carries s²).
        distances: the kernel's distances for this set's layers: the report's, below the distances its layers
            attend (a sliding set's window). attends_to: those distances and why (``ModelReading.attends_to``).
    """

    name: str
    base: float
    rotary_pairs: int
    critical_pair: int
    high_pairs: int
    training_context: int
    context_from: str
    wavelengths: list[float]
    attention_factor: float
    layout: str
    distances: list[int] | None = None
    attends_to: dict | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "base": self.base, "rotary_pairs": self.rotary_pairs,
                "critical_pair": self.critical_pair, "high_pairs": self.high_pairs,
                "training_context": self.training_context, "context_from": self.context_from,
                "layout": self.layout, "attention_factor": self.attention_factor, "wavelengths": self.wavelengths,
                "distances": self.distances, "attends_to": self.attends_to}


def default_distances(context: int) -> list[int]:
    """0, 1, 2, 4, ... (powers of two below the context), and the last distance within it, context - 1."""
    found = [0] + [2**i for i in range(max(context - 1, 1).bit_length()) if 2**i <= context - 1]
    return found if found[-1] == context - 1 or context <= 1 else [*found, context - 1]


def _training_context(one: RopeSet, reading: ModelReading) -> tuple[int, str]:
    """T of a set and the field (or rule) that gave it: the original context of an extended model, else the
    model's; a sliding-window set's window where that is shorter (its layers never see farther)."""
    scaling = one.scaling
    if scaling.kind in ("yarn", "llama3", "longrope") and scaling.original_ctx is not None:
        context, said = scaling.original_ctx, "original_max_position_embeddings"
    else:
        context, said = reading.context or one.ctx, "max_position_embeddings"
    window = reading.window_of(one.name)
    if window is not None and window < context:
        return window, "sliding_window"
    return context, said


def set_bands(one: RopeSet, reading: ModelReading, distances: list[int] | None) -> tuple[SetBands, Bands, object]:
    """A set's bands and kernel distances: the ones asked for (or the defaults of the distances its layers attend),
    each below that attended distance where a window bounds it."""
    import numpy as np

    from posemb_cli.core.schemes.rope_scaling import rope_frequencies
    from posemb_cli.measures.head_bands import bands_of

    unscaled, scaled, factor = rope_frequencies(one.rotary_dim, one.base, one.scaling, seq_len=one.ctx)
    context, said = _training_context(one, reading)
    bands = bands_of(unscaled, context)
    attends = reading.attends_to(one.name)
    if distances is None:
        distances = default_distances(attends.distance if attends.windowed else reading.context or 1)
    elif attends.windowed:
        distances = [d for d in distances if d < attends.distance]
    described = SetBands(name=one.name, base=one.base, rotary_pairs=one.rotary_dim // 2,
                         critical_pair=bands.critical_pair, high_pairs=bands.high_pairs, training_context=context,
                         context_from=said, wavelengths=(2 * np.pi / scaled).tolist(), attention_factor=factor,
                         layout=one.layout, distances=distances, attends_to=attends.to_dict())
    return described, bands, scaled


def qk_source_of(path: str, reading: ModelReading, qk, kind: str) -> dict:
    """The JSON ``source`` of the weights read: the file, its format, the config and the rules applied to q and k."""
    return {"checkpoint": path, "format": kind, "config": reading.path, "read_from": reading.read_from,
            "model_type": reading.model_type, "norms": qk.rule.describe(), "fused_qkv": qk.names.fused,
            "qk_rows_unpermuted": qk.unpermute, "rules": list(reading.rules)}


def workers() -> int:
    """Blocks measured side by side: the CPUs this process may use, at most 8 (each holds a block)."""
    import os

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        usable = os.cpu_count() or 1
    return max(1, min(usable, 8))


def layer_figures(weights, per_block: int, pool, described: SetBands, inv_freq, distances: list[int]):
    """(H, P) pair shares and (H, D) kernels of one layer, its blocks of key/value groups measured side by
    side (NumPy releases the interpreter's lock while it computes; the order of the results is the blocks')."""
    import numpy as np

    from posemb_cli.measures.head_frequencies import head_frequencies

    def measure(start: int):
        q, k = weights.block(start, min(start + per_block, weights.groups))
        return head_frequencies(q, k, rotary_dim=2 * described.rotary_pairs, layout=described.layout,
                                inv_freq=inv_freq, attention_factor=described.attention_factor,
                                distances=np.asarray(distances, dtype=np.float64))

    parts = list(pool.map(measure, range(0, weights.groups, per_block)))
    return (np.concatenate([part.pair_share for part in parts]), np.concatenate([part.kernel for part in parts]))


def read_layers(reading: ModelReading, qk, sets: dict, progress: Progress, side_by_side: int,
                measure: Callable) -> list:
    """Every layer's figures, in order: ``measure(record, weights, qk, sets, per_block, pool)`` of each rotating
    layer (``posemb heads``: its heads; ``pair_shares``: their shares), None for a layer without RoPE. A reader
    thread reads the next rotating layer (into the other of two buffers) while this one is measured, its blocks of
    key/value groups side by side in ``side_by_side`` threads."""
    from concurrent.futures import Future, ThreadPoolExecutor

    from posemb_cli.sources.weights.qk_weights import LayerBuffers, groups_per_block

    per_block = groups_per_block(qk.shape, side_by_side)
    rotating = [record.layer for record in reading.layers if record.position == "rope" and record.rope_set is not None]
    buffers = (LayerBuffers(), LayerBuffers())  # layer i is read into buffers[i % 2]
    ahead: dict[int, Future] = {}
    layers: list = []
    with ThreadPoolExecutor(side_by_side) as pool, ThreadPoolExecutor(1) as reader:
        def read(index: int) -> None:
            if index < len(rotating):  # its buffer held layer index - 2, measured by now
                ahead[rotating[index]] = reader.submit(qk.read, rotating[index], buffers[index % 2], per_block)

        read(0)
        for record in reading.layers:
            if record.layer not in ahead:  # no RoPE in this layer
                layers.append(None)
            else:
                weights = ahead.pop(record.layer).result()
                read(rotating.index(record.layer) + 1)
                layers.append(measure(record, weights, qk, sets, per_block, pool))
            progress.advance()
    return layers


@dataclass(frozen=True)
class PairShares:
    """Each head's pair shares, as ``posemb heads`` measures them, without the rest of its report.

    Attributes:
        source: where the weights were read from (``posemb heads --json``'s ``source``).
        layers: layer -> (H, P) pair shares (each row sums to 1), for each rotating layer.
    """

    source: dict
    layers: dict[int, np.ndarray]


def _shares(record, weights, qk, sets: dict, per_block: int, pool) -> np.ndarray:
    described, _, inv_freq = sets[record.rope_set]
    return layer_figures(weights, per_block, pool, described, inv_freq, [0])[0]


def pair_shares(tensors: TensorFile, reading: ModelReading, checkpoint: str, *,
                progress: Progress | None = None) -> PairShares:
    """Every rotating layer's (H, P) pair shares of a RoPE checkpoint already opened and read, measured as
    ``measure_heads`` measures them (the same layers read the same way); refusals are ``FileError``s about
    ``checkpoint``."""
    from posemb_cli.core.allocator import bounded_heap
    from posemb_cli.sources.weights.qk_source import open_qk_source

    progress = or_silent(progress)
    qk = open_qk_source(tensors, reading, checkpoint)
    sets = {one.name: set_bands(one, reading, [0]) for one in reading.rope_sets}
    progress.stage(f"reading q and k of {len(qk.layers)} layers", total=len(reading.layers))
    with bounded_heap():
        measured = read_layers(reading, qk, sets, progress, workers(), _shares)
    return PairShares(source=qk_source_of(checkpoint, reading, qk, tensors.kind),
                      layers={record.layer: one for record, one in zip(reading.layers, measured, strict=True)
                              if one is not None})
