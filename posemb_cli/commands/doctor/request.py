"""What `posemb doctor` is asked, checked once: the model, named by MODEL, --config or --checkpoint."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags

if TYPE_CHECKING:
    from posemb_cli.sources.naming.model_file import ModelFile

__all__ = ["DoctorRequest", "doctor_request"]


@dataclass(frozen=True)
class DoctorRequest:
    """``posemb doctor``'s request: the one model it examines, resolved."""

    model: ModelFile


def doctor_request(flags: Flags) -> DoctorRequest:
    """The request ``flags`` make (PosembError, exit 2: no model, or both flags)."""
    from posemb_cli.request.model import model_flags

    flags, named = model_flags(flags)
    if named is None:
        raise PosembError("doctor needs MODEL (a path, a Hugging Face id or ollama:NAME), --config FILE or "
                          "--checkpoint PATH")
    if flags["model_config"] is not None and flags["checkpoint"] is not None:
        raise PosembError("doctor needs exactly one of --config FILE or --checkpoint PATH")
    return DoctorRequest(model=named)
