"""What `posemb sweep` is asked, checked once: every point of the grid, each config settled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.request.flags import Flags

if TYPE_CHECKING:
    from posemb_cli.commands.sweep.run import SweepPoint

__all__ = ["SweepRequest", "sweep_request"]


@dataclass(frozen=True)
class SweepRequest:
    """``posemb sweep``'s request: every (dim, ctx, base, scheme, scaling) point of the grid, checked."""

    points: tuple[SweepPoint, ...]


def sweep_request(flags: Flags) -> SweepRequest:
    """The request ``flags`` make, every value of the grid checked once (PosembError, exit 2, naming the flag)."""
    from posemb_cli.commands.sweep.run import plan_sweep
    from posemb_cli.core.schemes import scheme_names
    from posemb_cli.core.settings import SCALING_KINDS
    from posemb_cli.request.lists import parse_choice_list, parse_float_list, parse_int_list
    from posemb_cli.run.config import parse_scheme_list

    values = dict(flags.values)
    names = parse_scheme_list("--schemes", values.pop("schemes"), scheme_names())
    for name in ("json", "debug"):
        values.pop(name, None)
    dim, ctx, base = values.pop("dim"), values.pop("ctx"), values.pop("base")
    rope_scaling, rope_factor = values.pop("rope_scaling"), values.pop("rope_factor")
    return SweepRequest(plan_sweep(
        schemes=names, dims=parse_int_list("--dim", dim), ctxs=parse_int_list("--ctx", ctx, example="512,2048"),
        bases=parse_float_list("--base", base),
        rope_scalings=parse_choice_list("--rope-scaling", rope_scaling, SCALING_KINDS, example="none,yarn"),
        rope_factors=(1.0,) if rope_factor is None else parse_float_list("--rope-factor", rope_factor, example="2,4"),
        typed=list(flags.typed), **values))
