"""The model a request names: MODEL, or --config / --checkpoint (the two flags give the same object,
``flag_model``; MODEL together with either is refused), and the flags a command runs with once MODEL is resolved."""

from __future__ import annotations

from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags
from posemb_cli.run.models.model_source import FLAG, name_model
from posemb_cli.sources.naming.model_file import MODEL, ModelFile, flag_model

__all__ = ["model_flags", "model_of"]


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
            return flag_model("--checkpoint", checkpoint)
        return None if config is None else flag_model("--config", config)
    for key, flag in (("model_config", "--config"), ("checkpoint", "--checkpoint")):
        if flags.values.get(key) is not None:
            raise PosembError(f"{FLAG} {name} and {flag} {flags.values[key]} both name a model; give one ({FLAG} "
                              "takes a path, a Hugging Face id or ollama:NAME)")
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
