"""The optional ``measure`` extra: the packages a measurement on a real model needs, checked before any is used.

``pip install 'posemb[measure]'`` pins them (pyproject.toml). Without one of them, or with a
transformers older than 5 (which names the scaling ``rope_scaling``, not ``rope_parameters``), a
measurement is refused in one line that says what to install (exit 2).
"""

from __future__ import annotations

import importlib

from posemb_cli.errors import PosembError

__all__ = ["INSTALL", "MEASURE_PACKAGES", "require_measure_extra"]

INSTALL = "pip install 'posemb[measure]'"
# Import name and what it is for: the runtime, device_map="auto" (and transformers' GGUF loading), GGUF files.
MEASURE_PACKAGES = (("transformers", "the runtime"), ("accelerate", "device placement"), ("gguf", "GGUF files"))


def require_measure_extra(what: str) -> str:
    """Raise PosembError naming the extra when a package of it is missing; give transformers' version.

    Args:
        what: the flag or file that asked for a measurement, for the message (``--text``).
    """
    version = ""
    for name, purpose in MEASURE_PACKAGES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            raise PosembError(f"{what}: measuring on the model needs the 'measure' extra ({name} is missing, "
                              f"for {purpose}); install it: {INSTALL}") from None
        if name == "transformers":
            version = str(getattr(module, "__version__", "0"))
            if int(version.split(".")[0]) < 5:
                raise PosembError(f"{what}: measuring on the model needs transformers 5 (found {version}); "
                                  f"install the 'measure' extra: {INSTALL}")
    return version
