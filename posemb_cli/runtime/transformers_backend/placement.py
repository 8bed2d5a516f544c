"""Where the weights go: one device, or spread over every GPU by accelerate's ``device_map="auto"``.

``--device cpu`` and ``cuda[:N]`` hold the whole model and its window on that one device.
``auto`` is a GPU where CUDA is available (the current one), else the CPU; when the model and its
window do not fit that GPU and the machine has more, accelerate spreads the layers over all of them
(``device_map="auto"``), each GPU keeping room for one forward's activations (``max_memory``): the
field's way to run a model larger than one device, and no sharding of posemb's own. Nothing is
offloaded to the CPU or to disk. What does not fit is refused before any weight is loaded, with
the estimate and what each device has (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from posemb_cli.errors import PosembError, ValueRefusal, option
from posemb_cli.sources.bounds.limits import cpu_available_bytes, format_bytes

__all__ = ["DEVICES", "Placement", "check_spec", "free_bytes", "place"]

DEVICES = "cpu, cuda, cuda:N or auto"


@dataclass(frozen=True)
class Placement:
    """How from_pretrained places the weights, in words, and the devices with their free bytes."""

    device_map: Any
    max_memory: dict | None
    description: str
    devices: tuple[tuple[str, int | None], ...]


def free_bytes(device: str) -> int | None:
    """Bytes free for new allocations on ``device`` ('cpu' or 'cuda:N'); None when the system does not say."""
    if device == "cpu":
        return cpu_available_bytes()
    import torch

    free, _total = torch.cuda.mem_get_info(torch.device(device))
    return int(free)


def _gpus(spec: str) -> list[str]:
    import torch

    if not torch.cuda.is_available():
        if spec == "auto":
            return []
        raise ValueRefusal("device", spec, f"CUDA is not available on this machine; use {option('device')} cpu or auto")
    count = torch.cuda.device_count()
    if spec.startswith("cuda:"):
        index = int(spec.split(":")[1])
        if index >= count:
            raise ValueRefusal("device", spec, f"this machine has {count} CUDA device(s), cuda:0 to cuda:{count - 1}")
        return [spec]
    current = torch.cuda.current_device()
    return [f"cuda:{current}"] + [f"cuda:{index}" for index in range(count) if index != current]


def _refuse(what: str, weights: int, working: int, devices: list[tuple[str, int | None]]) -> PosembError:
    have = ", ".join(f"{name} has {format_bytes(free)} free" for name, free in devices if free is not None)
    return PosembError(f"{what}: measuring needs about {format_bytes(weights + working)} (weights "
                       f"{format_bytes(weights)}, then {format_bytes(working)} to load them or run the window) "
                       f"but {have}; give a shorter {option('to')}, a smaller {option('dtype')} or another "
                       f"{option('device')}")


def check_spec(spec: str) -> None:
    """Refuse a ``--device`` value that names no device."""
    if spec not in ("cpu", "cuda", "auto") and not (spec.startswith("cuda:") and spec[5:].isdigit()):
        raise ValueRefusal("device", spec, f"not a device; give {DEVICES}")


def place(spec: str, weights: int, loading: int, activations: int, *, what: str) -> Placement:
    """Where a model of ``weights`` bytes goes, with ``loading`` more while it loads, then ``activations`` at work.

    Args:
        spec: ``cpu``, ``cuda``, ``cuda:N`` or ``auto``.
        what: the model and length, for the refusal (``model.gguf at 16384 tokens``).
    """
    check_spec(spec)
    working = max(loading, activations)
    gpus = [] if spec == "cpu" else _gpus(spec)
    first = gpus[0] if gpus else "cpu"
    free = free_bytes(first)
    if free is None or weights + working <= free:
        device_map = None if first == "cpu" else {"": first}
        return Placement(device_map, None, first, ((first, free),))
    devices = [(name, free_bytes(name)) for name in gpus]
    if spec != "auto" or len(gpus) < 2:
        raise _refuse(what, weights, working, devices[:1] if gpus else [(first, free)])
    room = {int(name.split(":")[1]): max(0, (have or 0) - working) for name, have in devices}
    if sum(room.values()) < weights:
        raise _refuse(what, weights, working * len(gpus), devices)
    return Placement("auto", room, f"spread over {len(gpus)} GPUs by accelerate (device_map=auto)",
                     tuple(devices))
