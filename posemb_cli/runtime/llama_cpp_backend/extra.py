"""The optional ``llamacpp`` extra: llama.cpp's Python binding, checked before it is used.

``pip install 'posemb[llamacpp]'`` builds llama.cpp from source with cmake (``llama-cpp-python``; pyproject.toml
pins it). Without it, a measurement through llama.cpp is refused in one line that says what to install (exit 2).
"""

from __future__ import annotations

import importlib

from posemb_cli.errors import PosembError

__all__ = ["INSTALL", "require_llama_cpp"]

INSTALL = "pip install 'posemb[llamacpp]'"


def require_llama_cpp(what: str) -> str:
    """The binding's version; PosembError naming the extra where it is not installed.

    Args:
        what: the flag that asked for llama.cpp (``--runtime llama.cpp``), for the message.
    """
    try:
        module = importlib.import_module("llama_cpp")
    except ImportError:
        raise PosembError(f"{what}: measuring through llama.cpp needs the 'llamacpp' extra (llama-cpp-python, "
                          f"which builds llama.cpp with cmake); install it: {INSTALL}") from None
    return str(getattr(module, "__version__", "unknown"))
