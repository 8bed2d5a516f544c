"""`compare`: schemes side by side on one batch (a checkpoint's table first when one is named), or real models
side by side (``compare MODEL MODEL ...``, ``commands.compare.models``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from posemb_cli.commands.compare.report import CompareReport
from posemb_cli.core.progress import Progress
from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags, refuse_scaling_without_factor, refuse_unread
from posemb_cli.run import report as engine
from posemb_cli.run.models.model_source import speaking_of
from posemb_cli.run.models.real_settings import check_source_flags

if TYPE_CHECKING:
    from posemb_cli.sources.naming.model_file import ModelFile

__all__ = ["compare_command"]


def compare_command(flags: Flags, *, progress: Progress | None = None, observe: Callable | None = None,
                    note: Callable[[str], None] | None = None) -> CompareReport:
    """Run ``compare``; its report as the public type (see ``_compare``)."""
    return CompareReport.of(_compare(flags, progress=progress, observe=observe, note=note))


def _compare(flags: Flags, *, progress: Progress | None = None, observe: Callable | None = None,
            note: Callable[[str], None] | None = None) -> engine.CompareReport:
    """Run ``compare``; ``observe`` and ``note`` as in ``inspect_command``."""
    from posemb_cli.core.schemes import scheme_names
    from posemb_cli.request.flags import config_from_flags
    from posemb_cli.run.analysis import compare
    from posemb_cli.run.config import parse_scheme_list

    values = dict(flags.values)
    models = list(values.get("models") or ())
    if models:
        from posemb_cli.commands.compare.models import compare_models

        return compare_models(models, flags, progress=progress, observe=observe, note=note)
    if values.get("scalings") is not None:
        raise PosembError("--scalings needs MODEL: it puts a real model under each scaling (posemb compare MODEL "
                          "--scalings none,yarn:4); for the rope scheme built from flags, use --rope-scaling")
    names = parse_scheme_list("--schemes", values["schemes"], scheme_names())
    checkpoint = values["checkpoint"]
    check_source_flags(checkpoint=checkpoint, key=values["key"], position_offset=values["position_offset"])
    if checkpoint is None:
        config = config_from_flags(values, schemes=names)
        refuse_unread(flags, names)
        refuse_scaling_without_factor(flags)
        return compare(config, names, progress=progress, observe=observe)
    from posemb_cli.sources.naming.model_file import flag_model

    model = flag_model("--checkpoint", checkpoint)
    with speaking_of(model):
        return _compare_checkpoint(flags, model, names, progress=progress, observe=observe)


def _compare_checkpoint(flags: Flags, model: ModelFile, names: tuple[str, ...], *, progress: Progress | None,
                        observe: Callable | None) -> engine.CompareReport:
    """``compare --checkpoint``: the checkpoint's table first, then the formula schemes of its shape."""
    from posemb_cli.request.flags import config_from_flags
    from posemb_cli.run.analysis import compare
    from posemb_cli.run.models.real_models import compare_checkpoint
    from posemb_cli.run.models.real_settings import settle_checkpoint
    from posemb_cli.run.models.real_sources import table_of_checkpoint

    values = dict(flags.values)
    real = table_of_checkpoint(model, key=values["key"], position_offset=values["position_offset"],
                               command="compare")
    values = settle_checkpoint(real, values, flags.typed)
    config = config_from_flags(values, schemes=names)
    refuse_unread(flags, names)
    refuse_scaling_without_factor(flags)
    if real.loaded is None:
        return compare(config, names, progress=progress, observe=observe)
    return compare_checkpoint(config, real.loaded, names, progress=progress, observe=observe, real=real,
                              vocab_typed=flags.given("vocab"))
