"""`doctor`: lint a model's position setup from its one reading, each finding located in the file it is about."""

from __future__ import annotations

from posemb_cli.run.commands import Flags
from posemb_cli.run.documents import DoctorReport

__all__ = ["doctor_command"]


def doctor_command(flags: Flags) -> DoctorReport:
    from posemb_cli.run.doctor import run_doctor
    from posemb_cli.run.doctor.locations import locate

    return locate(run_doctor(config=flags["model_config"], checkpoint=flags["checkpoint"]))
