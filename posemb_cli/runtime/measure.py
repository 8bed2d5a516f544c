"""Loss by position at the target length, per scaling, on the real model: the measurement beside a prediction.

For each scaling, in the order given, two forwards of L tokens from position 0, no cache: one on the
ids given, whose loss at every position ``measures.loss_by_position`` sums up against the trained
length T (the loss of the text itself, as the runtime's own forward on those ids gives it); and one on
the same ids with copy probes (``measures.copy_probes``) written over them, the same for every
scaling (spans of random ids repeated at distances from 32 tokens to near L, within and beyond T),
whose repeats are scored for copy retrieval by distance. A window too short to hold a probe runs the
first forward only. The second forward doubles the cost of a candidate (``probe_seconds``). The
scalings are then ranked by the mean loss over the window (lower first; a difference within the
dtype's rounding noise is a tie and keeps the predicted order), and that
ranking is set beside the predicted one with Spearman's rho and every pair the two order apart
(``measures.rank_agreement``).

The memory a window needs is checked before the first model is loaded. A Ctrl-C stops the run
where it is (``KeyboardInterrupt`` goes up untouched; nothing is written here). ``save_ids`` writes
the ids of every probe forward, one row each (row k: the k-th scaling's), once the last has run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.errors import PosembError, option
from posemb_cli.measures.copy_probes import Probe, Retrieval, place_probes, probe_pool, retrieval, write_probes
from posemb_cli.measures.loss_by_position import LossProfile, loss_profile
from posemb_cli.measures.rank_agreement import LOSS_NOISE, RankAgreement, measured_ranking, rank_agreement
from posemb_cli.runtime.protocol import CannotRun, LanguageModel, MemoryNeed
from posemb_cli.runtime.scaling import Scaling, unique_names
from posemb_cli.runtime.tokens import TokenWindow, check_save_ids, ids_window, text_window, write_ids

if TYPE_CHECKING:
    from posemb_cli.core.progress import Progress

__all__ = ["RULE", "MeasuredRun", "MeasuredScaling", "measure_model", "measure_scalings", "open_model"]

RULE = ("measured: lower mean next-token loss over the whole window of the ids given first (the log of its "
        "perplexity; the copy probes run in a forward of their own); a difference within the dtype's rounding noise "
        "is a tie, kept in the predicted order")


@dataclass(frozen=True)
class MeasuredScaling:
    """One scaling's window: its loss profile (the text's), the copy probes scored, the seconds spent; ``losses``
    and ``hits`` (L - 1,), every position's probes included, stay out of JSON."""

    name: str
    tokens: int
    profile: LossProfile
    seconds: float
    load_seconds: float
    losses: np.ndarray = field(repr=False, compare=False)
    retrieval: Retrieval = field(repr=False)
    hits: np.ndarray = field(repr=False, compare=False)
    probe_seconds: float = 0.0  # the probes' own forward (loading included); 0 where no probe fits
    settings: dict | None = None  # what the runtime ran it with, beyond its rope_parameters (llama.cpp's flags)

    def to_dict(self) -> dict:
        out = {"tokens": self.tokens, **self.profile.to_dict(), "seconds": self.seconds,
               "load_seconds": self.load_seconds, "probe_seconds": self.probe_seconds,
               "retrieval": self.retrieval.to_dict()}
        if self.settings is not None:
            out["runtime_settings"] = self.settings
        return out


@dataclass(frozen=True)
class MeasuredRun:
    """Every scaling measured on one window of one model, and how the measured ranking meets the predicted one.

    ``window`` holds the text's ids, the loss forward's; ``ids`` those the probes' forward ran (the probes written
    over the window), ``probes`` the probes; ``saved_ids`` the file the probe forwards' ids were written to, one row
    per scaling (None: not saved).
    """

    runtime: dict
    window: TokenWindow
    memory: MemoryNeed
    trained_length: int
    scalings: tuple[MeasuredScaling, ...]
    ranking: tuple[str, ...]
    agreement: RankAgreement | None
    ids: np.ndarray = field(repr=False, compare=False)
    probes: tuple[Probe, ...] = field(repr=False)
    saved_ids: str | None = None
    left_out: tuple[dict, ...] = ()  # {"scaling", "why"}: the scalings this runtime cannot run

    @property
    def length(self) -> int:
        return self.window.length

    def measured(self, name: str) -> MeasuredScaling:
        """The measurement of the scaling named ``name``."""
        for scaling in self.scalings:
            if scaling.name == name:
                return scaling
        raise KeyError(name)

    def to_dict(self) -> dict:
        return {"runtime": self.runtime, "text": self.window.to_dict(), "memory": self.memory.to_dict(),
                "length": self.length, "trained_length": self.trained_length, "rule": RULE,
                "measured": {scaling.name: scaling.to_dict() for scaling in self.scalings},
                "measured_ranking": list(self.ranking),
                "agreement": None if self.agreement is None else self.agreement.to_dict(), "saved_ids": self.saved_ids,
                "left_out": list(self.left_out)}


def measure_scalings(model: LanguageModel, window: TokenWindow, scalings: Sequence[Scaling], *,
                     trained_length: int, predicted_ranking: Sequence[str] | None = None,
                     progress: Progress | None = None, save_ids: str | None = None) -> MeasuredRun:
    """Measure the loss by position and copy retrieval of each scaling on ``window``, and rank them against
    ``predicted_ranking``.

    Args:
        model: the model behind its runtime (``runtime.open_model``).
        window: the L ids (``runtime.text_window`` or ``runtime.ids_window``); L > T + 1.
        scalings: the candidates, each with its rope_parameters and predicted frequencies.
        trained_length: T, the length the model's frequencies were trained at.
        predicted_ranking: the scalings' names, best first, as predicted; None: no agreement is given.
        progress: a stage per scaling (loading, then the window's layers and loss chunks).
        save_ids: a .npy or .json file to write the ids of every forward to, one row each, after the last.

    Raises:
        PosembError: the window does not reach past T, a ``save_ids`` file that cannot be written (before
            anything runs), a window that does not fit in memory (before any load), or a loaded model that
            does not hold a scaling's predicted frequencies.
    """
    if not scalings:
        raise ValueError("give at least one scaling to measure")
    unique_names(scalings)
    names = [scaling.name for scaling in scalings]
    if predicted_ranking is not None and sorted(predicted_ranking) != sorted(names):
        raise ValueError(f"the predicted ranking {list(predicted_ranking)} must order the scalings {names}")
    length = window.length
    if not 0 < trained_length < length - 1:
        raise PosembError(f"a window of {length:,} tokens holds no position past the trained length "
                          f"{trained_length:,}; measure a longer one")
    if save_ids is not None:
        check_save_ids(save_ids)
    need = model.check_memory(length)
    pool, left_out = probe_pool(window.ids, model.special_ids)
    probes = place_probes(length, trained_length, pool)
    ids = write_probes(window.ids, probes)
    measured: list[MeasuredScaling] = []
    cannot: list[dict] = []
    for scaling in scalings:
        try:
            text = model.token_losses(window.ids, scaling, progress)  # the loss of the ids given
        except CannotRun as why:  # this runtime has no settings for it: left out, said why
            cannot.append({"scaling": scaling.name, "why": str(why)})
            continue
        probed = model.token_losses(ids, scaling, progress) if probes else text
        found = retrieval(probes, probed.losses, probed.hits, trained_length=trained_length, pool=int(pool.size),
                          left_out=left_out, row=len(measured))
        measured.append(MeasuredScaling(scaling.name, length, loss_profile(text.losses, trained_length),
                                        text.seconds, text.load_seconds, text.losses, found, probed.hits,
                                        probed.seconds + probed.load_seconds if probes else 0.0, text.settings))
    if not measured:
        raise PosembError(f"{model.describe().get('name')} runs none of the scalings: "
                          + "; ".join(one["why"] for one in cannot))
    if save_ids is not None:
        write_ids(save_ids, np.stack([ids] * len(measured)))
    ran = [item.name for item in measured]
    prefer = [name for name in (predicted_ranking if predicted_ranking is not None else names) if name in ran]
    ranking = measured_ranking({item.name: item.profile.mean_loss for item in measured},
                               tolerance=LOSS_NOISE.get(model.dtype, LOSS_NOISE["float32"]), prefer=prefer)
    agreement = None if predicted_ranking is None else rank_agreement(ranking, prefer)
    return MeasuredRun(model.describe(), window, need, trained_length, tuple(measured), ranking, agreement, ids,
                       probes, save_ids, tuple(cannot))


RUNTIMES = ("transformers", "llama.cpp")


def open_model(path: str, *, device: str = "auto", dtype: str = "float32", what: str = option("model"),
               runtime: str = "transformers") -> LanguageModel:
    """The model at ``path`` behind ``runtime``: transformers (a directory with safetensors, its config.json, or a
    .gguf file) or llama.cpp (a .gguf file, as stored).

    Only its config (llama.cpp: its vocabulary) is read; a missing extra is refused here (exit 2, naming it and
    ``what``).
    """
    if runtime == "llama.cpp":
        from posemb_cli.runtime.llama_cpp_backend.model import open_llama_cpp_model

        return open_llama_cpp_model(path, what=what)
    from posemb_cli.runtime.transformers_backend.model import open_transformers_model

    return open_transformers_model(path, device=device, dtype=dtype, what=what)


def measure_model(path: str, scalings: Sequence[Scaling], *, length: int, trained_length: int,
                  text: Sequence[str] = (), ids: str | None = None, device: str = "auto", dtype: str = "float32",
                  predicted_ranking: Sequence[str] | None = None, progress: Progress | None = None,
                  save_ids: str | None = None) -> MeasuredRun:
    """``open_model``, the window of ``length`` ids from ``text`` files or an ``ids`` file, ``measure_scalings``.

    The one call of ``posemb extend --text/--ids``: flags in, the measured run out (PosembError, exit 2, for
    bad input, missing extra, a window that does not fit; KeyboardInterrupt goes up untouched).
    """
    if bool(text) == (ids is not None):
        raise PosembError(f"{option('text')} and {option('ids')}: give one of them, a UTF-8 text to tokenize or "
                          "token ids")
    model = open_model(path, device=device, dtype=dtype, what=option("text") if text else option("ids"))
    window = text_window(model, text, length) if text else ids_window(model, str(ids), length)
    return measure_scalings(model, window, scalings, trained_length=trained_length,
                            predicted_ranking=predicted_ranking, progress=progress, save_ids=save_ids)
