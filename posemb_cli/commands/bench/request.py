"""What `posemb bench` is asked, checked once: one settled config per width, the schemes, the rounds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.request.flags import Flags

if TYPE_CHECKING:
    from posemb_cli.core.settings import EmbeddingConfig

__all__ = ["BenchRequest", "bench_request"]


@dataclass(frozen=True)
class BenchRequest:
    """``posemb bench``'s request: a settled config per ``--dim``, the schemes timed, warm-up and timed rounds."""

    configs: tuple[EmbeddingConfig, ...]
    schemes: tuple[str, ...]
    warmup: int
    repeats: int


def bench_request(flags: Flags) -> BenchRequest:
    """The request ``flags`` make, every value checked once (PosembError, exit 2, naming the flag)."""
    from posemb_cli.commands.bench.run import bench_configs, check_repeats
    from posemb_cli.core.schemes import scheme_names
    from posemb_cli.request.lists import parse_int_list
    from posemb_cli.run.config import parse_scheme_list

    values = dict(flags.values)
    names = parse_scheme_list("--schemes", values.pop("schemes"), scheme_names())
    dims = parse_int_list("--dim", values.pop("dim"), example="512,1024")
    warmup, repeats = values.pop("warmup"), values.pop("repeats")
    check_repeats(warmup=warmup, repeats=repeats)
    for name in ("json", "debug"):
        values.pop(name, None)
    return BenchRequest(configs=bench_configs(dims=dims, schemes=names, **values), schemes=names, warmup=warmup,
                        repeats=repeats)
