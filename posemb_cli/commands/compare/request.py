"""What `posemb compare` is asked, checked once: schemes built from flags (a checkpoint's table first where one is
named), or real models side by side, each opened, under each scaling, its settings settled."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags, checked_config

if TYPE_CHECKING:
    from posemb_cli.commands.compare.scaled_models import ScalingChoice
    from posemb_cli.core.settings import EmbeddingConfig
    from posemb_cli.run.models.real_sources import RealModel
    from posemb_cli.sources.naming.model_file import ModelFile

__all__ = ["CompareRequest", "ModelColumn", "compare_request"]


@dataclass(frozen=True)
class ModelColumn:
    """One real model under one scaling, as ``inspect`` runs it.

    Attributes:
        name: MODEL as typed. named: it resolved. real: it opened, under the scaling. choice: the scaling asked for
            (None: the model as it is). scaling: the column's ``scaling`` object (the rope_parameters written).
        config, scheme: its settled settings and the scheme it is analysed as.
    """

    name: str
    named: ModelFile
    real: RealModel
    choice: ScalingChoice | None
    scaling: dict | None
    config: EmbeddingConfig
    scheme: str


@dataclass(frozen=True)
class CompareRequest:
    """``posemb compare``'s request, every value checked: schemes side by side, or real models side by side.

    Attributes:
        schemes: the schemes built from flags (empty for real models). config: their settled settings.
        checkpoint: ``--checkpoint`` resolved, whose table runs first (None without). table: it opened.
        models: the MODELs as typed, in order. choices: the scalings each runs under (None: as it is).
        columns: each model under each scaling, in order.
        vocab_typed: the user gave ``vocab`` (a real model's token table then gives way to it).
    """

    schemes: tuple[str, ...] = ()
    config: EmbeddingConfig | None = None
    checkpoint: ModelFile | None = None
    table: RealModel | None = None
    models: tuple[str, ...] = ()
    choices: tuple[ScalingChoice, ...] | None = None
    columns: tuple[ModelColumn, ...] = ()
    vocab_typed: bool = False


def compare_request(flags: Flags, *, note: Callable[[str], None] | None = None) -> CompareRequest:
    """The request ``flags`` make, every value checked once: each model named is opened and its settings settled
    under each scaling before any runs.

    Args:
        note: hears what the reading says about a real model (the CLI prints it on stderr).
    """
    from posemb_cli.core.schemes import scheme_names
    from posemb_cli.run.config import parse_scheme_list
    from posemb_cli.run.models.real_settings import check_source_flags

    values = flags.values
    models = tuple(values.get("models") or ())
    if models:
        return _models_request(models, flags, note)
    if values.get("scalings") is not None:
        raise PosembError("--scalings needs MODEL: it puts a real model under each scaling (posemb compare MODEL "
                          "--scalings none,yarn:4); for the rope scheme built from flags, use --rope-scaling")
    names = parse_scheme_list("--schemes", values["schemes"], scheme_names())
    checkpoint = values["checkpoint"]
    check_source_flags(checkpoint=checkpoint, key=values["key"], position_offset=values["position_offset"])
    if checkpoint is None:
        return CompareRequest(schemes=names, config=checked_config(flags, names))
    from posemb_cli.run.models.model_source import speaking_of
    from posemb_cli.sources.naming.model_file import option_model

    model = option_model("checkpoint", checkpoint)
    with speaking_of(model):
        return _checkpoint_request(flags, model, names)


def _checkpoint_request(flags: Flags, model: ModelFile, names: tuple[str, ...]) -> CompareRequest:
    """``compare --checkpoint``: the checkpoint's table (refused where it has none), then the formula schemes of its
    shape."""
    from posemb_cli.run.models.real_settings import settle_checkpoint
    from posemb_cli.run.models.real_sources import table_of_checkpoint

    values = dict(flags.values)
    table = table_of_checkpoint(model, key=values["key"], position_offset=values["position_offset"],
                                command="compare")
    values = settle_checkpoint(table, values, flags.typed)
    return CompareRequest(schemes=names, config=checked_config(flags, names, values), checkpoint=model, table=table,
                          vocab_typed=flags.given("vocab"))


def _models_request(names: tuple[str, ...], flags: Flags, note: Callable[[str], None] | None) -> CompareRequest:
    """``compare MODEL MODEL ...``: each model opened as ``inspect`` opens it, under each scaling."""
    from posemb_cli.commands.compare.scaled_models import parse_scalings, scaled_model
    from posemb_cli.request.model import settled_config
    from posemb_cli.run.models.model_source import name_model, speaking_of
    from posemb_cli.run.models.real_settings import check_source_flags
    from posemb_cli.run.models.real_sources import open_real_model

    if flags.values.get("checkpoint") is not None:
        raise PosembError(f"MODEL {names[0]} and --checkpoint {flags['checkpoint']} both name a model; give the "
                          "checkpoint as one more MODEL")
    if flags.given("schemes"):
        raise PosembError("--schemes with MODEL: compare runs each MODEL's own position signal; leave --schemes out")
    choices = None if flags.values.get("scalings") is None else tuple(parse_scalings(flags["scalings"]))
    columns: list[ModelColumn] = []
    for name in names:
        named = name_model(name)
        with speaking_of(named):
            check_source_flags(checkpoint=named.path if named.has_weights else None, key=flags["key"],
                               position_offset=flags["position_offset"])
            real = open_real_model(model=named, key=flags["key"], position_offset=flags["position_offset"])
            assert real is not None  # a model was named
            for choice in (None,) if choices is None else choices:
                model, scaling = (real, None) if choice is None else scaled_model(real, choice)
                config, scheme = settled_config(model, flags, note=note)
                columns.append(ModelColumn(name, named, model, choice, scaling, config, scheme))
    return CompareRequest(models=names, choices=choices, columns=tuple(columns), vocab_typed=flags.given("vocab"))
