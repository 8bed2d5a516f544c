"""What `posemb order` is asked, checked once: the schemes and the settled settings of the batch and the head."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.request.flags import Flags, checked_config

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
    from posemb_cli.run.config import parse_scheme_list

    names = parse_scheme_list("--schemes", flags["schemes"], scheme_names())
    return OrderRequest(config=checked_config(flags, names), schemes=names)
