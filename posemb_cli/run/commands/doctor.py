"""`doctor`: lint a model's position setup from its one reading."""

from __future__ import annotations

from posemb_cli.run.commands import Flags
from posemb_cli.run.documents import DoctorReport

__all__ = ["doctor_command"]


def doctor_command(flags: Flags) -> DoctorReport:
    from posemb_cli.run.doctor import run_doctor

    return run_doctor(config=flags["model_config"], checkpoint=flags["checkpoint"])
