"""A GGUF file behind llama.cpp (its Python binding, llama-cpp-python): the runtime GGUF users run, quantized as stored.

Each scaling runs with the llama.cpp flags ``posemb extend`` prints for it (``Scaling.llama_cpp``), translated once
(``llama_cpp_backend.flags``); a scaling without them is one llama.cpp has no flags for, and is refused
(``CannotRun``), so the measurement leaves it out with why. One window of L ids runs from position 0 in batches of
``BATCH`` tokens through one context of L positions (no cache reused between windows); after each batch its
logits are read, one row per position, and turned into the loss and the top-1 hit of the next id, in float64: no
(L, V) matrix is ever held (at L = 16,384 and V = 49,152 it would be 3.2 GB).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from posemb_cli.errors import PosembError, option
from posemb_cli.runtime.llama_cpp_backend.extra import require_llama_cpp
from posemb_cli.runtime.llama_cpp_backend.flags import binding_parameters
from posemb_cli.runtime.protocol import CannotRun, MemoryNeed, Separator, WindowLosses

if TYPE_CHECKING:
    from posemb_cli.core.progress import Progress
    from posemb_cli.runtime.scaling import Scaling

__all__ = ["BATCH", "CannotRun", "LlamaCppModel", "open_llama_cpp_model"]

BATCH = 512  # tokens per llama_decode: the logits read back are BATCH x V floats




_SILENCED: list = []  # the log callback, kept alive while the process runs


def _silence() -> None:
    """llama.cpp logs to stderr from C, past the binding's verbose flag: nothing but posemb's lines goes there."""
    import llama_cpp

    if not _SILENCED:
        _SILENCED.append(llama_cpp.llama_log_callback(lambda level, text, data: None))
        llama_cpp.llama_log_set(_SILENCED[0], None)


def _free_bytes() -> int | None:
    try:
        pages, size = os.sysconf("SC_AVPHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return int(pages) * int(size)


class LlamaCppModel:
    """A GGUF file as llama.cpp runs it (``runtime.protocol.LanguageModel``)."""

    def __init__(self, path: str, version: str, threads: int | None = None) -> None:
        import llama_cpp

        _silence()
        self.path, self.version = path, version
        self.threads = threads or max(1, os.cpu_count() or 1)
        # the vocabulary and the tokenizer only: no weights loaded until a window runs
        self._vocab = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
        self._metadata = dict(self._vocab.metadata)

    @property
    def source(self) -> str:
        return self.path

    @property
    def vocab_size(self) -> int:
        return int(self._vocab.n_vocab())

    @property
    def dtype(self) -> str:
        return "gguf"  # the weights as stored (quantized); llama.cpp computes the logits in float32

    @property
    def separator(self) -> Separator | None:
        eos = int(self._vocab.token_eos())
        if eos < 0:
            return None
        return Separator(self._vocab.detokenize([eos], special=True).decode("utf-8", "replace"), eos)

    @property
    def special_ids(self) -> frozenset[int]:
        found = {int(self._vocab.token_bos()), int(self._vocab.token_eos())}
        return frozenset(one for one in found if one >= 0)

    def describe(self) -> dict:
        return {"name": "llama.cpp", "version": self.version, "binding": "llama-cpp-python",
                "model": self._metadata.get("general.architecture"), "file": "gguf", "device": "cpu",
                "placement": f"cpu, {self.threads} threads", "dtype": "gguf", "attention": "llama.cpp",
                "cache": False}

    def encode(self, text: str) -> list[int]:
        return [int(one) for one in self._vocab.tokenize(text.encode("utf-8"), add_bos=True, special=False)]

    def check_memory(self, length: int) -> MemoryNeed:
        """The file's bytes, the KV cache of L positions (f16 keys and values of every layer) and a batch's logits."""
        arch = self._metadata.get("general.architecture", "")
        layers = int(self._metadata.get(f"{arch}.block_count", 0) or 0)
        heads = int(self._metadata.get(f"{arch}.attention.head_count", 0) or 0)
        kv_heads = int(self._metadata.get(f"{arch}.attention.head_count_kv", heads) or heads)
        width = int(self._metadata.get(f"{arch}.embedding_length", 0) or 0)
        head_dim = int(self._metadata.get(f"{arch}.attention.key_length", width // max(heads, 1)) or 0)
        cache = 2 * layers * length * kv_heads * head_dim * 2
        logits = BATCH * self.vocab_size * (4 + 8)  # the batch's float32 rows and their float64 log-softmax
        weights = os.path.getsize(self.path)
        free = _free_bytes()
        need = MemoryNeed(length, weights, 0, cache + logits, (("cpu", free),), f"cpu, {self.threads} threads")
        if free is not None and need.needed > free:
            raise PosembError(f"{self.path}: a window of {length:,} tokens through llama.cpp needs about "
                              f"{need.needed / 2**30:.1f} GiB (the file, a KV cache of {cache / 2**30:.1f} GiB and "
                              f"a batch's logits); {free / 2**30:.1f} GiB is free")
        return need

    def token_losses(self, ids: np.ndarray, scaling: Scaling, progress: Progress | None = None) -> WindowLosses:
        window = np.asarray(ids, dtype=np.int64)
        length = int(window.size)
        settings = self.settings(scaling, length)
        if progress is not None:
            progress.stage(f"{scaling.name}: loading", None)
        started = time.perf_counter()
        model = self._load(settings)
        loaded = time.perf_counter()
        try:
            if progress is not None:
                progress.stage(f"{scaling.name}: {length:,} tokens", -(-length // BATCH))
            losses, hits = self._window(model, window, progress)
        finally:
            model.close()
        return WindowLosses(losses, loaded - started, time.perf_counter() - loaded, hits,
                            {"args": list(scaling.llama_cpp or ()), "binding": settings})

    def settings(self, scaling: Scaling, length: int) -> dict:
        """The binding's parameters for ``scaling`` at ``length``: its printed flags, translated once."""
        args = scaling.llama_cpp
        if args is None:
            raise CannotRun(f"scaling {scaling.name}: llama.cpp has no flags for it ({scaling.llama_cpp_note})")
        settings = binding_parameters(args)
        if settings.get("n_ctx", length) < length:
            raise CannotRun(f"scaling {scaling.name}: its flags set -c {settings['n_ctx']:,}, short of {length:,}")
        return {**settings, "n_ctx": length}

    def _load(self, settings: dict) -> Any:
        import llama_cpp

        return llama_cpp.Llama(model_path=self.path, n_batch=BATCH, n_ubatch=BATCH, n_threads=self.threads,
                               n_threads_batch=self.threads, logits_all=False, verbose=False, **settings)

    def _window(self, model: Any, window: np.ndarray, progress: Progress | None) -> tuple[np.ndarray, np.ndarray]:
        """(L - 1,) losses and hits, batch by batch: each batch's logits read back and scored, then dropped."""
        import llama_cpp

        length, vocab = int(window.size), self.vocab_size
        losses = np.empty(length - 1, dtype=np.float64)
        hits = np.zeros(length - 1, dtype=bool)
        batch = llama_cpp.llama_batch_init(BATCH, 0, 1)
        try:
            for start in range(0, length, BATCH):
                count = min(BATCH, length - start)
                batch.n_tokens = count
                for offset in range(count):
                    batch.token[offset] = int(window[start + offset])
                    batch.pos[offset] = start + offset
                    batch.n_seq_id[offset] = 1
                    batch.seq_id[offset][0] = 0
                    batch.logits[offset] = True
                status = llama_cpp.llama_decode(model.ctx, batch)
                if status != 0:
                    raise PosembError(f"{self.path}: llama.cpp could not decode positions {start:,} to "
                                      f"{start + count - 1:,} (llama_decode returned {status})")
                logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits(model.ctx), shape=(count, vocab))
                scored = min(count, length - 1 - start)  # the last position predicts nothing
                if scored > 0:
                    rows = logits[:scored].astype(np.float64)  # (n, V)
                    targets = window[start + 1:start + 1 + scored]
                    top = rows.max(axis=1, keepdims=True)
                    log_norm = np.log(np.exp(rows - top).sum(axis=1)) + top[:, 0]
                    losses[start:start + scored] = log_norm - rows[np.arange(scored), targets]
                    hits[start:start + scored] = rows.argmax(axis=1) == targets
                if progress is not None:
                    progress.advance()
        finally:
            llama_cpp.llama_batch_free(batch)
        return losses, hits


def open_llama_cpp_model(path: str, *, what: str = f"{option('runtime')} llama.cpp") -> LlamaCppModel:
    """The GGUF file at ``path`` behind llama.cpp: its vocabulary read, no weights loaded.

    Raises:
        PosembError: the ``llamacpp`` extra is missing (naming it), or ``path`` is not a GGUF file.
    """
    version = require_llama_cpp(what)
    if not os.path.isfile(path):
        raise PosembError(f"{what}: llama.cpp runs a .gguf file; {path} is not one")
    return LlamaCppModel(path, version)
