"""What `posemb padding` is asked, checked once: the schemes built from flags, or a real model's own signal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags, checked_config

if TYPE_CHECKING:
    from posemb_cli.core.settings import EmbeddingConfig
    from posemb_cli.run.models.real_sources import RealModel
    from posemb_cli.sources.naming.model_file import ModelFile

__all__ = ["PaddingRequest", "padding_request"]


@dataclass(frozen=True)
class PaddingRequest:
    """``posemb padding``'s request, every value checked.

    Attributes:
        model: MODEL, ``--config`` or ``--checkpoint`` resolved, or None. real: that model opened (its own position
            signal, which replaces the schemes), or None. config: the settled settings. schemes: what runs.
        pad: the pad tokens put before the real ones.
    """

    model: ModelFile | None
    real: RealModel | None
    config: EmbeddingConfig
    schemes: tuple[str, ...]
    pad: int


def _real_model(flags: Flags, model: ModelFile | None):
    """The model named by MODEL, --checkpoint or --config (its own signal replaces --schemes), or None."""
    from posemb_cli.run.models.real_settings import check_source_flags

    checkpoint, model_config = flags["checkpoint"], flags["model_config"]
    check_source_flags(checkpoint=checkpoint, key=flags["key"], position_offset=flags["position_offset"],
                       model_config=model_config)
    if checkpoint is None and model_config is None:
        return None
    if flags.given("schemes"):
        given = "MODEL" if flags.values.get("model") is not None else "--checkpoint" if checkpoint else "--config"
        raise PosembError(f"--schemes: {given} runs the model's own position signal; leave --schemes out")
    from posemb_cli.run.models.real_sources import open_real_model

    return open_real_model(model=model, key=flags["key"], position_offset=flags["position_offset"])


def padding_request(flags: Flags) -> PaddingRequest:
    """The request ``flags`` make, every value checked once (the model named is opened, its settings settled)."""
    from posemb_cli.request.model import model_flags
    from posemb_cli.run.models.model_source import speaking_of

    flags, named = model_flags(flags)
    with speaking_of(named):
        return _checked(flags, named)


def _checked(flags: Flags, model: ModelFile | None) -> PaddingRequest:
    from posemb_cli.core.schemes import scheme_names
    from posemb_cli.run.config import parse_scheme_list, require_positive_int

    values, pad = dict(flags.values), flags["pad"]
    names = parse_scheme_list("--schemes", values["schemes"], scheme_names())
    require_positive_int("--pad", pad)
    real = _real_model(flags, model)
    if real is not None:
        from posemb_cli.run.models.real_settings import refuse_model_settings, settle_real_model

        values, settled = settle_real_model(real, {**values, "max_offset": 1}, flags.typed)
        refuse_model_settings(real, flags.typed)
        names = (settled,)
    require_positive_int("--ctx", values["ctx"])
    if values["ctx"] < 2:
        raise PosembError(f"--ctx {values['ctx']} leaves no room for --pad {pad} pad tokens before a real one")
    config = checked_config(flags, names, {**values, "max_offset": 1})
    return PaddingRequest(model=model, real=real, config=config, schemes=names, pad=pad)
