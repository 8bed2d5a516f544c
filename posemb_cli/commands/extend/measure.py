"""`posemb extend --text/--ids`: the prediction's candidates measured on the model, set beside its ranking.

The join of ``commands.extend.predict`` (the prediction from the model's files) and ``runtime`` (the loss at every
position of one window through transformers). Each candidate becomes one ``runtime.Scaling``: its
exact ``rope_parameters`` (one block, or one per layer type), and per RoPE set the frequencies the
loaded model's rotary module must then hold: the candidate's θ′ at L (dynamic NTK's at L) and its
attention factor for a set that needs extension, the published ones for a set that needs none (a
sliding-window set keeps its block in every candidate). The window's trained length T is that of
the extended sets (the shortest, were they to differ). The measurement ranks the candidates by
mean loss and sets that ranking beside the predicted one (``measures.rank_agreement``).

Steps, each refusal before the next step's work: ``open_measured`` (the ``measure`` extra, the
device and dtype, the model's files and config; nothing loaded) before the prediction, then
``measure_candidates`` (the window of L ids, the memory, one load and one forward per candidate; the forward
gives both the loss by position and the copy probes' retrieval by distance, ``runtime.measure_scalings``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError

if TYPE_CHECKING:
    from posemb_cli.commands.extend.report import Candidate, ExtendReport
    from posemb_cli.core.progress import Progress
    from posemb_cli.runtime import LanguageModel, Scaling
    from posemb_cli.sources.naming.model_file import ModelFile

__all__ = ["MEASURE_ONLY", "RUNTIMES", "chosen_runtime", "measure_candidates", "open_measured", "scalings_of",
           "trained_length_of"]

MEASURE_ONLY = ("device", "dtype", "save_ids", "runtime")  # the flags only the measurement reads


RUNTIMES = ("auto", "transformers", "llama.cpp")


def chosen_runtime(named: ModelFile, runtime: str) -> str:
    """The runtime that measures: ``auto`` is llama.cpp for a GGUF file where its extra is installed (the engine
    GGUF users run, on the file as stored), else transformers. llama.cpp on anything but a GGUF file is refused."""
    if runtime == "llama.cpp" and named.kind != "gguf":
        raise PosembError(f"--runtime llama.cpp: llama.cpp runs a .gguf file; MODEL {named.name} is {named.found}")
    if runtime != "auto":
        return runtime
    if named.kind != "gguf":
        return "transformers"
    import importlib.util

    return "llama.cpp" if importlib.util.find_spec("llama_cpp") is not None else "transformers"


def open_measured(named: ModelFile, *, what: str, device: str, dtype: str, runtime: str = "transformers"
                  ) -> LanguageModel:
    """The model behind the runtime (its config read, nothing loaded).

    Args:
        named: MODEL as resolved: a GGUF file, or a checkpoint whose directory (beside its config.json) transformers
            loads; a config alone is refused (nothing to run).
        what: the flag that asked for the measurement (``--text`` or ``--ids``), named by a refusal.

    Raises:
        PosembError: a config alone, the ``measure`` extra missing (naming it), a device or dtype that is none,
            files transformers cannot load as a causal language model.
    """
    from posemb_cli.runtime import open_model

    if named.kind == "config":
        raise PosembError(f"{what}: MODEL {named.name} is {named.found}; measuring runs the model: give its "
                          "directory with safetensors weights, or a .gguf file")
    path = named.path if named.kind == "gguf" else str(named.config)
    if runtime == "llama.cpp":
        return open_model(path, what="--runtime llama.cpp", runtime=runtime)
    return open_model(path, device=device, dtype=dtype, what=what)


def trained_length_of(report: ExtendReport) -> int:
    """T of the window: the trained length of the RoPE sets the target extends."""
    return min(one.trained_length for one in report.sets if one.needs_extension)


def _expected(report: ExtendReport, candidate: Candidate):
    from posemb_cli.runtime import RotaryExpectation

    parameters = candidate.rope_parameters
    per_type = "rope_type" not in parameters
    out = []
    for one in report.sets:
        layer_type = one.name if per_type else None
        if per_type and one.name not in parameters:
            raise PosembError(f"scaling {candidate.scaling}: RoPE set {one.name} has no block in its rope_parameters "
                              f"({', '.join(map(str, parameters))}); posemb cannot say what transformers will load")
        if not one.needs_extension:
            out.append(RotaryExpectation(tuple(one.published["inv_freq"]), one.published["attention_factor"],
                                         layer_type))
            continue
        found = next(item for item in one.candidates if item.scaling == candidate.scaling)
        out.append(RotaryExpectation(tuple(pair.inv_freq for pair in found.pairs), found.attention_factor,
                                     layer_type))
    return tuple(out)


def scalings_of(report: ExtendReport) -> list[Scaling]:
    """One ``runtime.Scaling`` per candidate, in the report's candidate order."""
    from posemb_cli.runtime import Scaling

    return [Scaling(one.scaling, one.rope_parameters, _expected(report, one),
                    None if one.llama_cpp is None else tuple(one.llama_cpp), one.llama_cpp_note)
            for one in report.candidates]


class _Numbered:
    """The runtime's stages (``"yarn: loading"``) as ``"measuring 2 of 4, yarn: loading"``: a bar per candidate."""

    def __init__(self, inner: Progress, names: list[str]) -> None:
        self.inner, self.names = inner, names

    def stage(self, name: str, total: int | None = None) -> None:
        scaling = name.split(":", 1)[0]
        if scaling in self.names:
            name = f"measuring {self.names.index(scaling) + 1} of {len(self.names)}, {name}"
        self.inner.stage(name, total)

    def advance(self, done: int = 1) -> None:
        self.inner.advance(done)


def measure_candidates(model: LanguageModel, report: ExtendReport, *, text: Sequence[str], ids: str | None,
                       progress: Progress | None = None, save_ids: str | None = None) -> ExtendReport:
    """``report`` with every candidate measured on a window of ``report.to`` ids from ``text`` files or ``ids``:
    its loss by position and its copy retrieval by distance, from one forward per candidate.

    Args:
        save_ids: a .npy or .json file (``--save-ids``) the ids of every forward are written to, one row per
            candidate in the report's candidate order (each probe's ``row``), once the last has run.

    Raises:
        PosembError: a ``save_ids`` file that cannot be written (before the text is read), a text or ids shorter
            than L (saying how many tokens), a window that does not fit, a loaded model that does not hold a
            candidate's predicted frequencies.
    """
    from posemb_cli.runtime import check_save_ids, ids_window, measure_scalings, text_window

    if save_ids is not None:
        check_save_ids(save_ids)
    scalings = scalings_of(report)
    names = [scaling.name for scaling in scalings]
    if progress is not None:
        progress.stage("tokenizing the text" if text else "reading the ids")
    window = text_window(model, list(text), report.to) if text else ids_window(model, str(ids), report.to)
    run = measure_scalings(model, window, scalings, trained_length=trained_length_of(report),
                           predicted_ranking=[one.scaling for one in report.ranking],
                           progress=None if progress is None else _Numbered(progress, names), save_ids=save_ids)
    return dataclasses.replace(report, measurement=run)
