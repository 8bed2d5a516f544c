"""What `posemb order` is asked, checked once: the schemes and the settled settings of the batch and the head."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.request.flags import Flags, refuse_scaling_without_factor, refuse_unread

if TYPE_CHECKING:
    from posemb_cli.core.settings import EmbeddingConfig

__all__ = ["OrderRequest", "order_request"]


@dataclass(frozen=True)
class OrderRequest:
    """``posemb order``'s request: the settled settings and the schemes compared."""

    config: EmbeddingConfig
    schemes: tuple[str, ...]


def order_request(flags: Flags) -> OrderRequest:
    """The request ``flags`` make, every value checked once (PosembError, exit 2, naming the flag)."""
    from posemb_cli.core.schemes import scheme_names
    from posemb_cli.request.flags import config_from_flags
    from posemb_cli.run.config import parse_scheme_list

    names = parse_scheme_list("--schemes", flags["schemes"], scheme_names())
    config = config_from_flags(flags.values, schemes=names)
    refuse_unread(flags, names)
    refuse_scaling_without_factor(flags)
    return OrderRequest(config=config, schemes=names)
