"""The registry of positional schemes: name -> module with a ``build`` function.

Names are known without importing torch; a scheme's module is imported only
when it is built.
"""

from __future__ import annotations

import importlib

_REGISTRY = {
    "learned": "posemb_cli.core.schemes.learned",
    "sinusoidal": "posemb_cli.core.schemes.sinusoidal",
    "rope": "posemb_cli.core.schemes.rope",
    "alibi": "posemb_cli.core.schemes.alibi",
    "none": "posemb_cli.core.schemes.none",
}


def scheme_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def build_scheme(name: str, config, *, device, dtype):
    """Build scheme ``name`` from the settings, on ``device`` in ``dtype``."""
    module = importlib.import_module(_REGISTRY[name])
    return module.build(config, device=device, dtype=dtype)
