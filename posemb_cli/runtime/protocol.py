"""The seam between a measurement and the runtime that runs the model (lm-evaluation-harness's ``LM``).

A measurement asks a runtime for five things: what it is (for the report), the model's vocabulary
and its tokenizer's way with a text (and its special ids), whether a window of L tokens fits before
anything is loaded, and the next-token loss and top-1 hit at every position of one window under one
scaling. transformers (``runtime/transformers_backend``) and llama.cpp (``runtime/llama_cpp_backend``, GGUF files)
stand behind the same five; a scaling a runtime has no settings for raises ``CannotRun`` and is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from posemb_cli.errors import PosembError

if TYPE_CHECKING:
    import numpy as np

    from posemb_cli.core.progress import Progress
    from posemb_cli.runtime.scaling import Scaling

__all__ = ["CannotRun", "LanguageModel", "MemoryNeed", "Separator", "WindowLosses"]


class CannotRun(PosembError):
    """A scaling a runtime has no settings for (llama.cpp has no flags for dynamic NTK): left out, with why."""


@dataclass(frozen=True)
class Separator:
    """The token put between concatenated documents: its text and its id."""

    token: str
    id: int

    def to_dict(self) -> dict:
        return {"token": self.token, "id": self.id}


@dataclass(frozen=True)
class WindowLosses:
    """One window's losses and top-1 hits under one scaling, and the seconds spent loading the model and running it.

    Attributes:
        losses: (L - 1,) float64; entry p is the loss of predicting token p + 1 from tokens 0..p.
        load_seconds: loading the model with the scaling and checking it.
        seconds: the window's forward, its losses and hits.
        hits: (L - 1,) bool; entry p: the most likely token after tokens 0..p (the logits' argmax) is token p + 1.
        settings: the runtime's own parameters for the scaling (llama.cpp's), for the report; None: its
            rope_parameters say it all.
    """

    losses: np.ndarray
    load_seconds: float
    seconds: float
    hits: np.ndarray
    settings: dict | None = None  # what the runtime ran the scaling with, where it is more than rope_parameters


@dataclass(frozen=True)
class MemoryNeed:
    """What a window of ``length`` tokens needs, per device, and what each device has.

    Attributes:
        weights: bytes of the model's weights as run.
        loading: bytes loading the weights adds for a while (conversions, a file's mapped pages).
        activations: bytes of the largest working set of one forward at ``length``, and the losses.
        devices: each device the run uses, with its free bytes (None where the system does not say).
        placement: how the weights are placed, in words (``cpu``, ``cuda:0``, ``spread by accelerate ...``).
    """

    length: int
    weights: int
    loading: int
    activations: int
    devices: tuple[tuple[str, int | None], ...]
    placement: str

    @property
    def needed(self) -> int:
        """The peak: the weights, and the larger of loading's transient bytes and the window's activations."""
        return self.weights + max(self.loading, self.activations)

    def to_dict(self) -> dict:
        return {"length": self.length, "weights_bytes": self.weights, "loading_bytes": self.loading,
                "activation_bytes": self.activations, "needed_bytes": self.needed, "placement": self.placement,
                "devices": [{"device": name, "free_bytes": free} for name, free in self.devices]}


@runtime_checkable
class LanguageModel(Protocol):
    """A causal language model behind one runtime, as a measurement of loss by position takes it."""

    @property
    def source(self) -> str:
        """The model as the user named it (a directory or a .gguf file)."""

    @property
    def vocab_size(self) -> int:
        """The number of token ids the model embeds: every id must lie in [0, vocab_size)."""

    @property
    def dtype(self) -> str:
        """The dtype the model runs in (``float32``, ``bfloat16``, ...)."""

    @property
    def separator(self) -> Separator | None:
        """The token between concatenated documents (the tokenizer's end of sequence); None without one."""

    @property
    def special_ids(self) -> frozenset[int]:
        """The ids of the tokenizer's special tokens, as far as the runtime knows them (empty: none known)."""

    def describe(self) -> dict:
        """The runtime, its version, the model class, device and dtype: the report's ``runtime`` object."""

    def encode(self, text: str) -> list[int]:
        """``text`` as the model's own tokenizer encodes one document (with the special tokens it adds)."""

    def check_memory(self, length: int) -> MemoryNeed:
        """The estimate for a window of ``length`` tokens; raise PosembError (exit 2) when it does not fit."""

    def token_losses(self, ids: np.ndarray, scaling: Scaling, progress: Progress | None = None) -> WindowLosses:
        """The next-token loss and top-1 hit at each position of one window under ``scaling``.

        Args:
            ids: (L,) int64 token ids, run as one window from position 0, with no cache.
            scaling: the rope_parameters to run with; the runtime checks it holds ``scaling.expected``.
            progress: receives one stage per scaling and its work.

        Returns:
            the (L - 1,) losses (entry p: the loss of predicting ``ids[p + 1]`` from ``ids[: p + 1]``), the
            (L - 1,) hits (entry p: the argmax of those logits is ``ids[p + 1]``) and the seconds spent.
        """
