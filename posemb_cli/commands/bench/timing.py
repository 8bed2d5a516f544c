"""Wall-clock timing of callables side by side: warm-up, interleaved repeats, CUDA synchronised.

Plain Python around ``time.perf_counter``; torch is imported only to synchronise
a CUDA device, so that a timer never reads work that is still queued.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    """Seconds of each repeat of one callable."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        return min(self.samples)

    @property
    def max(self) -> float:
        return max(self.samples)

    @property
    def spread(self) -> float:
        """Interquartile range over the median: 0.05 means the middle half lies within 5% of it."""
        if len(self.samples) < 2:
            return 0.0
        low, _, high = statistics.quantiles(self.samples, n=4, method="inclusive")
        return (high - low) / self.median if self.median > 0 else 0.0


def synchronizer(device) -> Callable[[], None]:
    """A no-argument function that waits for ``device``'s queued kernels (a no-op on CPU)."""
    if getattr(device, "type", "cpu") != "cuda":
        return lambda: None
    import torch

    return lambda: torch.cuda.synchronize(device)


def time_side_by_side(
    calls: dict[str, Callable[[], object]],
    *,
    device=None,
    warmup: int = 3,
    repeats: int = 20,
    progress: Callable[[], None] | None = None,
) -> dict[str, Timing]:
    """Time each callable ``repeats`` times, interleaved round by round, after ``warmup`` rounds.

    Interleaving puts every callable under the same machine load, so that their
    ratio holds on a shared, noisy machine even when the absolute figures drift.

    Args:
        calls: name -> callable; each is called once per round.
        device: a torch device; CUDA work is synchronised before each clock read.
        warmup: untimed rounds first (allocator, caches, lazy initialisation).
        repeats: timed rounds.
        progress: called once after every round, warm-up included.
    """
    sync = synchronizer(device)
    for _ in range(warmup):
        for call in calls.values():
            call()
        sync()
        if progress is not None:
            progress()
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            sync()
            start = time.perf_counter()
            call()
            sync()
            samples[name].append(time.perf_counter() - start)
        if progress is not None:
            progress()
    return {name: Timing(tuple(values)) for name, values in samples.items()}
