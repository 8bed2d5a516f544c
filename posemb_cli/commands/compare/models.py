"""`compare MODEL MODEL ...`: real models side by side, each column exactly what `posemb inspect` finds.

Each MODEL is named once and read as ``inspect`` reads it, and under ``--scalings`` put under each scaling,
when the request is checked (``request.py``, ``scaled_models``); every (model, scaling) then runs ``inspect``'s
own core (``run.models.real_models``), so a column's figures are the ones ``posemb inspect`` prints for it. A
model with one RoPE set per layer type gives one column per set (Gemma 3: full_attention and sliding_attention),
each over the distances its layers attend. A column is labelled by the model's name (its RoPE set and scaling
after it where they tell columns apart); each entry adds ``label``, ``scaling`` and its own ``config`` to the
document.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from posemb_cli.core.progress import Prefixed, Progress, or_silent
from posemb_cli.run.report import CompareReport, InspectReport, SchemeReport

if TYPE_CHECKING:
    from posemb_cli.commands.compare.request import CompareRequest

# The settings every column shares; the others (dim, ctx, ...) are each column's own, null when they differ.
_SHARED = ("batch", "seed", "device", "dtype", "init_std", "max_offset", "ids", "full")

__all__ = ["compare_models", "model_label"]


def model_label(name: str) -> str:
    """A MODEL's name for a column: a Hugging Face id or an Ollama name as typed; a path by its last part (a
    config.json by its folder), without a weights suffix."""
    if not os.path.exists(name):
        return name
    path = os.path.normpath(os.path.abspath(name))
    base = os.path.basename(path)
    if base == "config.json":
        base = os.path.basename(os.path.dirname(path)) or base
    stem, suffix = os.path.splitext(base)
    return stem if suffix.lower() in (".gguf", ".safetensors", ".bin", ".pt", ".pth") else base


def _columns(report: InspectReport) -> list[tuple[str | None, SchemeReport]]:
    """(RoPE set or None, its report) for each column of one model: one per set where it has several."""
    result = report.result
    if not result.layer_types:
        return [(None, result)]
    return [(name, dataclasses.replace(one, model=result.model, layer_map=result.layer_map, layer_types=None))
            for name, one in result.layer_types]


def _shared_config(configs: list[dict], names: list[str], labels: list[str], scalings: list[str] | None,
                   schemes: list[str]) -> dict:
    """The document's config: what every column shares; a setting that differs between columns is null."""
    keys = dict.fromkeys(key for config in configs for key in config if key not in ("scheme", "model_config",
                                                                                   "checkpoint", "key",
                                                                                   "position_offset"))
    out: dict = {"schemes": schemes, "models": names, "labels": labels, "scalings": scalings}
    for key in keys:
        values = [config.get(key) for config in configs]
        out[key] = values[0] if key in _SHARED or all(value == values[0] for value in values) else None
    return out


def _label(name: str, rope_set: str | None, scaling: str | None, *, several_models: bool) -> str:
    parts = [model_label(name)] if several_models or scaling is None else []
    parts += [part for part in (rope_set, scaling) if part is not None]
    return " ".join(parts)


def compare_models(request: CompareRequest, *, progress: Progress | None = None,
                   observe: Callable | None = None) -> CompareReport:
    """Each model (under each scaling) as ``inspect`` analyses it, side by side."""
    from posemb_cli.run.models.model_source import speaking_of
    from posemb_cli.run.models.real_models import inspect_real_model
    from posemb_cli.run.report import resolved_result

    progress = or_silent(progress)
    names, choices = list(request.models), request.choices
    results: list[SchemeReport] = []
    keys: list[dict] = []
    configs: list[dict] = []
    for column in request.columns:
        label_of = None if column.choice is None else column.choice.label
        title = model_label(column.name) + ("" if label_of is None else f" {label_of}")
        with speaking_of(column.named):
            report = inspect_real_model(column.config, column.real, vocab_typed=request.vocab_typed,
                                        progress=Prefixed(progress, title), observe=observe)
        for rope_set, result in _columns(report):
            label = _label(column.name, rope_set, label_of, several_models=len(names) > 1)
            results.append(resolved_result(result, column.named.resolved()))
            keys.append({"label": label, "scaling": column.scaling, "config": report.config})
            configs.append(report.config)
    config = _shared_config(configs, names, [one["label"] for one in keys],
                            None if choices is None else [choice.label for choice in choices],
                            [result.scheme for result in results])
    return CompareReport(config=config, results=results, column_keys=keys)
