"""runtime layer: a real model run behind one small seam (``protocol.LanguageModel``), transformers its one backend.

The measurement of ``posemb extend --text/--ids``: ``open_model`` (nothing loaded yet), a window
of ids (``text_window``, ``ids_window``), then ``measure_scalings``. transformers, accelerate and
gguf are the optional ``measure`` extra and are imported inside ``transformers_backend`` only.
"""

from __future__ import annotations

from posemb_cli.runtime.measure import RULE, MeasuredRun, MeasuredScaling, measure_scalings
from posemb_cli.runtime.protocol import LanguageModel, MemoryNeed, Separator, WindowLosses
from posemb_cli.runtime.scaling import RotaryExpectation, Scaling
from posemb_cli.runtime.tokens import TokenWindow, ids_window, text_window

__all__ = ["RULE", "LanguageModel", "MeasuredRun", "MeasuredScaling", "MemoryNeed", "RotaryExpectation", "Scaling",
           "Separator", "TokenWindow", "WindowLosses", "ids_window", "measure_scalings", "open_model", "text_window"]


def open_model(path: str, *, device: str = "auto", dtype: str = "float32", what: str = "MODEL") -> LanguageModel:
    """The model at ``path`` (a directory with safetensors, its config.json, or a .gguf file) behind transformers.

    Only its config is read; a missing ``measure`` extra is refused here (exit 2, naming it).
    """
    from posemb_cli.runtime.transformers_backend.model import open_transformers_model

    return open_transformers_model(path, device=device, dtype=dtype, what=what)
