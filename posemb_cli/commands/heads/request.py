"""What `posemb heads` is asked, checked once: the one typed request its run takes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags

if TYPE_CHECKING:
    from posemb_cli.sources.naming.model_file import ModelFile

MAX_TOP = 1000

__all__ = ["MAX_TOP", "HeadsRequest", "heads_request"]


@dataclass(frozen=True)
class HeadsRequest:
    """``posemb heads``'s request, every value checked.

    Attributes:
        model: MODEL (or ``--checkpoint``) resolved: a model with its query and key weights.
        distances: the kernel's distances (None: the default ones). top: heads listed per finding.
        pictures: draw the terminal pictures.
    """

    model: ModelFile
    distances: tuple[int, ...] | None
    top: int
    pictures: bool


def heads_request(flags: Flags) -> HeadsRequest:
    """The request ``flags`` make, every value checked once (PosembError, exit 2, naming the flag or the file)."""
    from posemb_cli.commands.heads.measure import parse_distances
    from posemb_cli.request.model import model_flags

    top = flags["top"]
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP:
        raise PosembError(f"--top must be from 1 to {MAX_TOP}, got {top}")
    distances = flags["distances"]  # a list given to the API arrives as the comma string (Option.check)
    chosen = None if distances is None else tuple(parse_distances(distances))
    flags, named = model_flags(flags, needs_weights="heads")
    if flags["checkpoint"] is None:
        raise PosembError("heads needs MODEL (a path, a Hugging Face id or ollama:NAME) or --checkpoint PATH: a "
                          "RoPE model's weights")
    assert named is not None  # MODEL or --checkpoint
    return HeadsRequest(model=named, distances=chosen, top=top, pictures=not flags.values.get("no_plot", False))
