"""From a command's flag values to one validated config: the single call every command makes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.config import make_config
from posemb_cli.run.position_config import with_position_settings

_LESSON_FIELDS = ("dim", "ctx", "vocab", "batch", "seq_len", "seed", "device", "dtype", "base", "init_std",
                  "max_offset", "ids", "full")
_POSITION_FIELDS = ("head_dim", "rope_layout", "rope_scaling", "rope_factor", "original_ctx", "beta_fast",
                    "beta_slow", "low_freq_factor", "high_freq_factor", "attention_factor", "heads")

__all__ = ["config_from_flags"]


def config_from_flags(flags: Mapping[str, Any], *, schemes: tuple[str, ...]) -> EmbeddingConfig:
    """Check every setting the flags give (absent ones take their defaults) and fill in the effective values.

    Raises:
        PosembError: naming the flag, for the first value that is not allowed.
    """
    config = make_config(**{name: flags[name] for name in _LESSON_FIELDS if name in flags})
    position = {name: flags[name] for name in _POSITION_FIELDS if name in flags}
    return with_position_settings(config, schemes=schemes, **position)
