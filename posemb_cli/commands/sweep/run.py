"""The core of `posemb sweep`: many inspect runs in one process, so torch's start-up is paid once.

Every configuration is built and validated before any work starts; then each
one goes through ``analysis.inspect``, so a sweep's objects are exactly what
``posemb inspect --json`` prints for the same settings.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from posemb_cli.core.progress import Prefixed, Progress, or_silent
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.request.words import flag_of
from posemb_cli.run.config import check_default_position_settings, make_config, require_positive_int
from posemb_cli.run.memory import estimate_bytes, require_fits, size_blame

MAX_POINTS = 10_000  # configurations of one sweep: every one is validated before any work starts
# The RoPE scaling flags sweep takes beside the lists --rope-scaling and --rope-factor: one value each.
SCALING_SETTINGS = ("original_ctx", "beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor",
                    "attention_factor")


@dataclass(frozen=True)
class SweepPoint:
    """One configuration of the sweep: a scheme and its settings."""

    scheme: str
    config: EmbeddingConfig


def _scalings(schemes: tuple[str, ...], kinds: tuple[str, ...], factors: tuple[float, ...],
              typed: Collection[str]) -> list[tuple[str, float]]:
    """The (kind, factor) pairs rope runs under (none once, with factor 1); the scaling flags refused where no
    scheme reads them or a kind lacks its factor."""
    given = [name for name in ("rope_scaling", "rope_factor", *SCALING_SETTINGS) if name in typed]
    if given and "rope" not in schemes:
        flag = flag_of(given[0])
        chosen = f"schemes {', '.join(schemes)} do" if len(schemes) > 1 else f"scheme {schemes[0]} does"
        raise PosembError(f"{flag} is read only by rope, and the chosen {chosen} not read it; add rope to --schemes "
                          f"or leave {flag} out")
    scaled = [kind for kind in kinds if kind != "none"]
    if scaled and "rope_factor" not in typed:
        raise PosembError(f"--rope-scaling {scaled[0]} needs --rope-factor (a comma list of factors, 1 or more, "
                          "e.g. --rope-factor 2,4)")
    if "rope_factor" in typed and not scaled:
        raise PosembError("--rope-factor needs a --rope-scaling other than none (e.g. --rope-scaling linear,yarn)")
    return [(kind, 1.0) if kind == "none" else (kind, factor) for kind in kinds
            for factor in ((1.0,) if kind == "none" else factors)]


def plan_sweep(
    *,
    schemes: tuple[str, ...],
    dims: tuple[int, ...],
    ctxs: tuple[int, ...],
    bases: tuple[float, ...],
    seq_len: int | None = None,
    rope_scalings: tuple[str, ...] = ("none",),
    rope_factors: tuple[float, ...] = (1.0,),
    typed: Collection[str] = (),
    **settings: Any,
) -> tuple[SweepPoint, ...]:
    """Every (dim, ctx, base, scheme) combination, rope under every (scaling, factor), each checked by
    ``make_config`` and the position settings' own checks.

    Args:
        settings: make_config's, and the single RoPE scaling settings (``SCALING_SETTINGS``).
        typed: the flags the user gave (parameter names): a scaling flag no scheme reads is refused.

    Raises:
        PosembError: naming the flag, for the first value that is not allowed anywhere in the grid.
    """
    scaling = {name: settings.pop(name) for name in SCALING_SETTINGS if name in settings}
    pairs = _scalings(schemes, rope_scalings, rope_factors, typed)
    per_base = sum(len(pairs) if scheme == "rope" else 1 for scheme in schemes)
    count = len(dims) * len(ctxs) * len(bases) * per_base
    if count > MAX_POINTS:
        raise PosembError(f"--dim/--ctx/--base/--schemes/--rope-scaling/--rope-factor: the grid has {count:,} "
                          f"configurations; at most {MAX_POINTS:,} are allowed in one sweep")
    if seq_len is not None:
        require_positive_int("--seq-len", seq_len)
    points = []
    for dim, ctx, base, scheme in itertools.product(dims, ctxs, bases, schemes):
        if seq_len is not None and seq_len > ctx:
            raise PosembError(f"--seq-len {seq_len} exceeds --ctx {ctx} (every --ctx must hold --seq-len)")
        config = make_config(dim=dim, ctx=ctx, base=base, seq_len=seq_len, **settings)
        for kind, factor in pairs if scheme == "rope" else [("none", 1.0)]:
            scaled = config if scheme != "rope" else dataclasses.replace(
                config, rope_scaling=kind, rope_factor=factor, **scaling)
            scaled = check_default_position_settings(scaled, (scheme,))  # rope/alibi: refused now, not mid-sweep
            points.append(SweepPoint(scheme=scheme, config=scaled))
    return tuple(points)


def run_sweep(
    points: tuple[SweepPoint, ...],
    *,
    progress: Progress | None = None,
) -> Iterator:
    """Yield one ``InspectReport`` per point, in order, after refusing up front what would not fit."""
    from posemb_cli.run.analysis import inspect
    from posemb_cli.run.preparation import resolve_device

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
        "rope_scaling": config["rope_scaling"],
        "rope_factor": config["rope_factor"],
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
