"""`doctor`: lint a model's position setup from its one reading, each finding located in the file it is about."""

from __future__ import annotations

from posemb_cli.commands.doctor.report import DoctorReport
from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags
from posemb_cli.request.model import model_flags
from posemb_cli.run.models.model_source import speaking_of, with_resolved

__all__ = ["doctor_command"]


def doctor_command(flags: Flags) -> DoctorReport:
    from posemb_cli.commands.doctor.examine import run_doctor
    from posemb_cli.commands.doctor.locations import locate

    flags, named = model_flags(flags)
    if named is None:
        raise PosembError("doctor needs MODEL (a path, a Hugging Face id or ollama:NAME), --config FILE or "
                          "--checkpoint PATH")
    if flags["model_config"] is not None and flags["checkpoint"] is not None:
        raise PosembError("doctor needs exactly one of --config FILE or --checkpoint PATH")
    with speaking_of(named):
        report = locate(run_doctor(named))
    return with_resolved(report, named)
