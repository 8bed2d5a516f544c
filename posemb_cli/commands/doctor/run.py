"""`doctor`: lint a model's position setup from its one reading, each finding located in the file it is about."""

from __future__ import annotations

from posemb_cli.commands.doctor.report import DoctorReport
from posemb_cli.commands.doctor.request import DoctorRequest
from posemb_cli.run.models.model_source import speaking_of, with_resolved

__all__ = ["doctor_command"]


def doctor_command(request: DoctorRequest) -> DoctorReport:
    from posemb_cli.commands.doctor.examine import run_doctor
    from posemb_cli.commands.doctor.locations import locate

    with speaking_of(request.model):
        report = locate(run_doctor(request.model))
    return with_resolved(report, request.model)
