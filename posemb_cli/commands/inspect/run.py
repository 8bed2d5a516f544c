"""`inspect`: one scheme, or a real model named by MODEL, --checkpoint or --config, in depth."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from posemb_cli.commands.inspect.report import InspectReport
from posemb_cli.core.progress import Progress
from posemb_cli.request.flags import Flags, refuse_scaling_without_factor, refuse_unread
from posemb_cli.request.model import model_flags
from posemb_cli.run import report as engine
from posemb_cli.run.models.model_source import speaking_of, with_resolved
from posemb_cli.run.models.real_settings import check_source_flags

if TYPE_CHECKING:
    from posemb_cli.run.models.real_sources import RealModel

__all__ = ["inspect_command", "inspect_real"]


def inspect_command(flags: Flags, *, progress: Progress | None = None, observe: Callable | None = None,
                    note: Callable[[str], None] | None = None) -> InspectReport:
    """Run ``inspect``; its report as the public type (see ``_inspect``)."""
    return InspectReport.of(_inspect(flags, progress=progress, observe=observe, note=note))


def _inspect(flags: Flags, *, progress: Progress | None = None, observe: Callable | None = None,
            note: Callable[[str], None] | None = None) -> engine.InspectReport:
    """Run ``inspect``.

    Args:
        observe: names the heatmaps wanted per scheme (``analysis.run_schemes``); None: no pictures.
        note: hears what the run says about a real model before it runs (the CLI prints it on stderr).
    """
    from posemb_cli.request.flags import config_from_flags
    from posemb_cli.run.analysis import inspect

    flags, named = model_flags(flags)
    with speaking_of(named):
        values = flags.values
        checkpoint, model_config = values["checkpoint"], values["model_config"]
        check_source_flags(checkpoint=checkpoint, key=values["key"], position_offset=values["position_offset"],
                           model_config=model_config)
        if checkpoint is None and model_config is None:
            name = flags["scheme"]
            config = config_from_flags(values, schemes=(name,))
            refuse_unread(flags, (name,))
            refuse_scaling_without_factor(flags)
            return inspect(config, name, progress=progress, observe=observe)
        from posemb_cli.run.models.real_sources import open_real_model

        real = open_real_model(model=named, key=values["key"], position_offset=values["position_offset"])
        assert real is not None  # one of the two was given
        report = inspect_real(real, flags, progress=progress, observe=observe, note=note)
    return with_resolved(report, named)


def inspect_real(real: RealModel, flags: Flags, *, progress: Progress | None = None, observe: Callable | None = None,
                 note: Callable[[str], None] | None = None) -> engine.InspectReport:
    """``inspect`` of a real model already read: its shape settled into the flags, every diagnostic run on it."""
    from posemb_cli.request.flags import config_from_flags
    from posemb_cli.run.models.real_models import inspect_real_model
    from posemb_cli.run.models.real_settings import refuse_model_settings, settle_real_model

    values, name = settle_real_model(real, flags.values, flags.typed)
    refuse_model_settings(real, flags.typed)
    for line in real.notes:
        if note is not None:
            note(line)
    config = config_from_flags(values, schemes=(name,))
    refuse_unread(flags, (name,))
    refuse_scaling_without_factor(flags)
    return inspect_real_model(config, real, vocab_typed=flags.given("vocab"), progress=progress, observe=observe)
