"""transformers behind the runtime seam: a model directory or GGUF file as a ``LanguageModel``.

Opening reads the config and nothing else (the tokenizer on first use). For each scaling the
model is loaded afresh from its files with the scaling's ``rope_parameters`` in its config, as
transformers 5 takes a scaling: every module that reads the config at construction sees the
scaling, as in a user's own ``from_pretrained``. Then, before the window runs: the logits path is
checked on a prefix and the rotary module against the caller's frequencies at L; after it, the
rotary module again (the forward must not have moved it). The model is released before the next.
"""

from __future__ import annotations

import gc
import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from posemb_cli.core.dtypes import DTYPES, dtype_size, resolve_dtype
from posemb_cli.errors import PosembError, ValueRefusal, option
from posemb_cli.runtime.protocol import MemoryNeed, Separator, WindowLosses
from posemb_cli.runtime.transformers_backend import loading, losses, memory, placement, rotary
from posemb_cli.runtime.transformers_backend.extra import require_measure_extra

if TYPE_CHECKING:
    from posemb_cli.core.progress import Progress
    from posemb_cli.runtime.scaling import Scaling

__all__ = ["TransformersModel", "open_transformers_model"]


class TransformersModel:
    """A causal LM loaded through transformers, one fresh load per scaling (see the module docstring)."""

    def __init__(self, files: loading.ModelFiles, config: Any, version: str, device: str, dtype: str) -> None:
        self.files, self.config, self.version = files, config, version
        self.device, self.dtype = device, dtype
        self._tokenizer: Any = None
        self._placements: dict[int, tuple[placement.Placement, MemoryNeed]] = {}

    @property
    def source(self) -> str:
        return self.files.source

    @property
    def vocab_size(self) -> int:
        return int(self.config.get_text_config().vocab_size)

    def _tokenizer_loaded(self) -> Any:
        if self._tokenizer is None:
            self._tokenizer = loading.load_tokenizer(self.files)
        return self._tokenizer

    @property
    def separator(self) -> Separator | None:
        tokenizer = self._tokenizer_loaded()
        token_id = tokenizer.eos_token_id
        return None if token_id is None else Separator(str(tokenizer.eos_token), int(token_id))

    @property
    def special_ids(self) -> frozenset[int]:
        """The config's bos, eos and pad ids, and the tokenizer's special ids where it loads (ids need none)."""
        config = self.config.get_text_config()
        found: set[int] = set()
        for name in ("bos_token_id", "eos_token_id", "pad_token_id"):
            value = getattr(config, name, None)
            found.update(int(one) for one in (value if isinstance(value, (list, tuple)) else [value])
                         if isinstance(one, int) and not isinstance(one, bool))
        try:
            found.update(int(one) for one in self._tokenizer_loaded().all_special_ids)
        except (PosembError, ImportError):  # no tokenizer transformers can build (--ids needs none): the config's
            pass
        return frozenset(found)

    def encode(self, text: str) -> list[int]:
        return [int(token) for token in self._tokenizer_loaded()(text, verbose=False)["input_ids"]]

    def describe(self) -> dict:
        architectures = getattr(self.config, "architectures", None) or [str(self.config.model_type)]
        placed = [need.placement for _where, need in self._placements.values()]
        return {"name": "transformers", "version": self.version, "model": architectures[0],
                "file": "gguf" if self.files.gguf_file else "safetensors", "device": self.device,
                "placement": placed[-1] if placed else None, "dtype": self.dtype, "attention": "sdpa",
                "cache": False}

    def check_memory(self, length: int) -> MemoryNeed:
        if length not in self._placements:
            element = dtype_size(self.dtype)
            built = loading.meta_model(self.config)
            weights = memory.weight_bytes(built, element)
            transient = memory.loading_bytes(built, os.path.getsize(self.source) if self.files.gguf_file else None)
            activations = memory.activation_bytes(self.config, length, element)
            where = placement.place(self.device, weights, transient, activations,
                                    what=f"{self.source} at {length} tokens")
            self._placements[length] = (where, MemoryNeed(length, weights, transient, activations, where.devices,
                                                          where.description))
        return self._placements[length][1]

    def token_losses(self, ids: np.ndarray, scaling: Scaling, progress: Progress | None = None) -> WindowLosses:
        import torch

        window = np.asarray(ids, dtype=np.int64)
        length = int(window.size)
        self.check_memory(length)
        where = self._placements[length][0]
        config = loading.config_with(self.config, scaling.rope_parameters, scaling.name)
        if progress is not None:
            progress.stage(f"{scaling.name}: loading", None)
        started = time.perf_counter()
        model = loading.load_model(self.files, config, resolve_dtype(self.dtype), where.device_map, where.max_memory)
        try:
            losses.check_logits_path(model, window, self.source)
            rotary.check_rotary(model, scaling, length, run=True)
            loaded = time.perf_counter()
            if progress is not None:
                progress.stage(f"{scaling.name}: {length:,} tokens", losses.loss_steps(model, length))
            values, hits = losses.window_losses(model, window, progress)
            _synchronize(model)
            seconds = time.perf_counter() - loaded
            rotary.check_rotary(model, scaling, length, run=False)
        finally:
            del model
            gc.collect()
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        return WindowLosses(values, loaded - started, seconds, hits)


def _synchronize(model: Any) -> None:
    import torch

    for device in {parameter.device for parameter in model.parameters()}:
        if device.type == "cuda":
            torch.cuda.synchronize(device)


def open_transformers_model(path: str, *, device: str = "auto", dtype: str = "float32",
                            what: str = option("model")) -> TransformersModel:
    """The model at ``path`` behind transformers: its config read, nothing loaded.

    Args:
        path: a model directory (config.json and safetensors), its config.json, or a .gguf file.
        device: ``cpu``, ``cuda``, ``cuda:N`` or ``auto`` (see ``placement``).
        dtype: the dtype the model runs in, one of ``core.dtypes.DTYPES``.
        what: the flag that asked for the measurement, for the missing-extra message.
    """
    if dtype not in DTYPES:
        raise ValueRefusal("dtype", dtype, f"not a dtype; give one of {', '.join(DTYPES)}")
    placement.check_spec(device)
    version = require_measure_extra(what)
    files = loading.locate(path)
    return TransformersModel(files, loading.read_config(files), version, device, dtype)
