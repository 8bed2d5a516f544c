"""What `posemb inspect` is asked, checked once: one scheme built from flags, or a real model opened and its
settings settled."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.request.flags import Flags, checked_config

if TYPE_CHECKING:
    from posemb_cli.core.settings import EmbeddingConfig
    from posemb_cli.run.models.real_sources import RealModel
    from posemb_cli.sources.naming.model_file import ModelFile

__all__ = ["InspectRequest", "inspect_request"]


@dataclass(frozen=True)
class InspectRequest:
    """``posemb inspect``'s request, every value checked.

    Attributes:
        config: the settled settings. scheme: the scheme analysed (a real model's: its own kind).
        model: MODEL, ``--config`` or ``--checkpoint`` resolved, or None. real: that model opened, or None.
        vocab_typed: the user gave ``vocab`` (a real model's token table then gives way to it).
    """

    config: EmbeddingConfig
    scheme: str
    model: ModelFile | None = None
    real: RealModel | None = None
    vocab_typed: bool = False


def inspect_request(flags: Flags, *, note: Callable[[str], None] | None = None) -> InspectRequest:
    """The request ``flags`` make, every value checked once: a model named is opened and its settings settled.

    Args:
        note: hears what the reading says about a real model (the CLI prints it on stderr).
    """
    from posemb_cli.request.model import model_flags
    from posemb_cli.run.models.model_source import speaking_of

    flags, named = model_flags(flags)
    with speaking_of(named):
        return _checked(flags, named, note)


def _checked(flags: Flags, named: ModelFile | None, note: Callable[[str], None] | None) -> InspectRequest:
    from posemb_cli.run.models.real_settings import check_source_flags

    values = flags.values
    check_source_flags(checkpoint=values["checkpoint"], key=values["key"], position_offset=values["position_offset"],
                       model_config=values["model_config"])
    if named is None:
        name = flags["scheme"]
        return InspectRequest(config=checked_config(flags, (name,)), scheme=name)
    from posemb_cli.request.model import settled_config
    from posemb_cli.run.models.real_sources import open_real_model

    real = open_real_model(model=named, key=values["key"], position_offset=values["position_offset"])
    assert real is not None  # a model was named
    config, scheme = settled_config(real, flags, note=note)
    return InspectRequest(config=config, scheme=scheme, model=named, real=real,
                          vocab_typed=flags.given("vocab"))
