"""`padding`: one head on a batch and on its left-padded copy; a real model's own signal when one is named."""

from __future__ import annotations

from posemb_cli.commands.padding.report import PaddingReport
from posemb_cli.core.progress import Progress
from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags, refuse_scaling_without_factor, refuse_unread
from posemb_cli.request.model import model_flags
from posemb_cli.run.models.model_source import speaking_of, with_resolved
from posemb_cli.run.models.real_settings import check_source_flags
from posemb_cli.sources.naming.model_file import ModelFile

__all__ = ["padding_command"]


def _real_model(flags: Flags, model: ModelFile | None):
    """The model named by MODEL, --checkpoint or --config (its own signal replaces --schemes), or None."""
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


def padding_command(flags: Flags, *, progress: Progress | None = None) -> PaddingReport:
    flags, named = model_flags(flags)
    with speaking_of(named):
        report = _padding(flags, named, progress)
    return with_resolved(report, named)


def _padding(flags: Flags, model: ModelFile | None, progress: Progress | None) -> PaddingReport:
    from posemb_cli.commands.padding.measure import run_padding
    from posemb_cli.core.schemes import scheme_names
    from posemb_cli.request.flags import config_from_flags
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
    config = config_from_flags({**values, "max_offset": 1}, schemes=names)
    refuse_unread(flags, names)
    refuse_scaling_without_factor(flags)
    if real is None:
        return run_padding(config, names, pad, progress=progress)
    from posemb_cli.commands.padding.real_model import padding_real_model

    return padding_real_model(config, real, pad, progress=progress)
