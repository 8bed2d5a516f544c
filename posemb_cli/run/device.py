"""Device and dtype resolution."""

from __future__ import annotations

from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError

if TYPE_CHECKING:
    import torch


def resolve_device(spec: str) -> torch.device:
    """Turn ``auto|cpu|cuda|cuda:N`` into a concrete, available torch device."""
    import torch

    if spec == "cpu" or (spec == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise PosembError(f"--device {spec}: CUDA is not available on this machine; use --device cpu or auto")
    count = torch.cuda.device_count()
    index = torch.cuda.current_device() if spec in ("auto", "cuda") else int(spec.split(":")[1])
    if index >= count:
        raise PosembError(f"--device {spec}: this machine has {count} CUDA device(s), cuda:0 to cuda:{count - 1}")
    return torch.device("cuda", index)


def synchronize(device: torch.device) -> None:
    """Wait for queued kernels, so that a timer reads finished work."""
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)
