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


def rebuild_rows(name: str, config, *, device, dtype):
    """Scheme ``name`` built again from the settings, as a second read of its signal's rows.

    A learned table's draw is repeated block by block (``normal_rows``), so no second (L, D)
    table is held; every other scheme has no table: it is rebuilt and its ``signal`` read.

    Returns:
        An iterator of consecutive (b, F) blocks covering rows 0..L-1 (learned), or the rebuilt
        scheme's ``signal(start, stop)``.
    """
    if name == "learned":
        from posemb_cli.core.schemes.learned import drawn_rows

        return drawn_rows(config, device=device, dtype=dtype)
    return build_scheme(name, config, device=device, dtype=dtype).signal
