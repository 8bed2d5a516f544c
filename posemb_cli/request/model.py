"""The model a request names: MODEL, or --config / --checkpoint (the two flags give the same object,
``option_model``; MODEL together with either is refused), and the flags a command runs with once MODEL is resolved."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags
from posemb_cli.request.words import flag_of
from posemb_cli.run.models.model_source import FLAG, name_model
from posemb_cli.sources.naming.model_file import MODEL, OPTION_KEYS, ModelFile, option_model

if TYPE_CHECKING:
    from posemb_cli.core.settings import EmbeddingConfig
    from posemb_cli.run.models.real_sources import RealModel

__all__ = ["model_flags", "model_of", "settled_config"]


def model_of(flags: Flags, *, needs_weights: str | None = None) -> ModelFile | None:
    """The model MODEL, ``--checkpoint`` or ``--config`` names (``--checkpoint`` where both flags are given, which
    the command refuses), or None where none is given.

    Args:
        needs_weights: the command, for one that reads weights only (``heads``): a config alone is refused.
    """
    name = flags.values.get("model")
    if name is None:
        checkpoint, config = flags.values.get("checkpoint"), flags.values.get("model_config")
        if checkpoint is not None:
            return option_model("checkpoint", checkpoint)
        return None if config is None else option_model("model_config", config)
    for key in OPTION_KEYS:
        if flags.values.get(key) is not None:
            raise PosembError(f"{FLAG} {name} and {flag_of(key)} {flags.values[key]} both name a model; give one "
                              f"({FLAG} takes a path, a Hugging Face id or ollama:NAME)")
    named = name_model(str(name))
    if needs_weights is not None and not named.has_weights:
        raise PosembError(f"{FLAG} {name}: {named.found}; {needs_weights} reads the query and key weights: name the "
                          "model with its weights (a model directory holding them, a .safetensors or .bin file with "
                          "its config.json beside it, or a .gguf file)")
    return named


def model_flags(flags: Flags, *, needs_weights: str | None = None) -> tuple[Flags, ModelFile | None]:
    """The model the flags name (``model_of``), and the flags with a MODEL's file under its flag's parameter, as the
    run's ``config`` names the file it read.

    Returns:
        The flags to run with, and the model (None when none is named).
    """
    model = model_of(flags, needs_weights=needs_weights)
    if model is None or model.via != MODEL:
        return flags, model
    return flags.replace({**flags.values, model.key: model.path}), model


def settled_config(real: RealModel, flags: Flags, *,
                   note: Callable[[str], None] | None = None) -> tuple[EmbeddingConfig, str]:
    """The settings a real model already read runs with, and the scheme it is analysed as: its shape settled into
    the flags, a flag it contradicts refused, then checked as every request is (``inspect`` of a model, and each
    column of ``compare MODEL ...``).

    Args:
        note: hears what the reading says about the model before it runs (the CLI prints it on stderr).
    """
    from posemb_cli.request.flags import checked_config
    from posemb_cli.run.models.real_settings import refuse_model_settings, settle_real_model

    values, name = settle_real_model(real, flags.values, flags.typed)
    refuse_model_settings(real, flags.typed)
    for line in real.notes:
        if note is not None:
            note(line)
    return checked_config(flags, (name,), values), name
