"""The core of `posemb sweep`: many inspect runs in one process, so torch's start-up is paid once.

Every configuration is built and validated before any work starts; then each
one goes through ``analysis.inspect``, so a sweep's objects are exactly what
``posemb inspect --json`` prints for the same settings.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.run.config import make_config, require_positive_int
from posemb_cli.run.memory import estimate_bytes, require_fits
from posemb_cli.run.memory_blame import size_blame
from posemb_cli.run.position_config import check_default_position_settings
from posemb_cli.run.progress import Prefixed, Progress, or_silent

MAX_POINTS = 10_000  # configurations of one sweep: every one is validated before any work starts


@dataclass(frozen=True)
class SweepPoint:
    """One configuration of the sweep: a scheme and its settings."""

    scheme: str
    config: EmbeddingConfig


def plan_sweep(
    *,
    schemes: tuple[str, ...],
    dims: tuple[int, ...],
    ctxs: tuple[int, ...],
    bases: tuple[float, ...],
    seq_len: int | None = None,
    **settings,
) -> tuple[SweepPoint, ...]:
    """Every (dim, ctx, base, scheme) combination, each checked by ``make_config``.

    Raises:
        PosembError: naming the flag, for the first value that is not allowed anywhere in the grid.
    """
    count = len(dims) * len(ctxs) * len(bases) * len(schemes)
    if count > MAX_POINTS:
        raise PosembError(f"--dim/--ctx/--base/--schemes: the grid has {count:,} configurations; "
                          f"at most {MAX_POINTS:,} are allowed in one sweep")
    if seq_len is not None:
        require_positive_int("--seq-len", seq_len)
    points = []
    for dim, ctx, base, scheme in itertools.product(dims, ctxs, bases, schemes):
        if seq_len is not None and seq_len > ctx:
            raise PosembError(f"--seq-len {seq_len} exceeds --ctx {ctx} (every --ctx must hold --seq-len)")
        config = make_config(dim=dim, ctx=ctx, base=base, seq_len=seq_len, **settings)
        config = check_default_position_settings(config, (scheme,))  # rope/alibi: refused now, not mid-sweep
        points.append(SweepPoint(scheme=scheme, config=config))
    return tuple(points)


def run_sweep(
    points: tuple[SweepPoint, ...],
    *,
    progress: Progress | None = None,
) -> Iterator:
    """Yield one ``InspectReport`` per point, in order, after refusing up front what would not fit."""
    from posemb_cli.run.analysis import inspect
    from posemb_cli.run.device import resolve_device

    device = resolve_device(points[0].config.device)
    needed, largest = max((estimate_bytes(point.config, (point.scheme,)), index)
                          for index, point in enumerate(points))
    require_fits(needed, device, flags=size_blame(points[largest].config, (points[largest].scheme,)))
    progress = or_silent(progress)
    for index, point in enumerate(points):
        yield inspect(point.config, point.scheme,
                      progress=Prefixed(progress, f"configuration {index + 1:,} of {len(points):,}"))


def summary_row(report) -> dict:
    """The figures of one inspect report that the sweep's table shows."""
    data = report.to_dict()
    config, similarity = data["config"], data["neighbour_similarity"]
    return {
        "scheme": config["scheme"],
        "dim": config["dim"],
        "ctx": config["ctx"],
        "base": config["base"],
        "position_params": data["params"]["position"],
        "overhead": data["params"]["overhead"],
        "first_offset_mean": similarity[0]["mean"],
        "last_offset": similarity[-1]["offset"],
        "last_offset_mean": similarity[-1]["mean"],
        "norm_mean": (data.get("table") or {}).get("norm_mean"),
    }
