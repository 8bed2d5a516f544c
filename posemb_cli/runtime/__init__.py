"""runtime layer: a real model run behind one small seam (``protocol.LanguageModel``), transformers its one backend.

The measurement of ``posemb extend --text/--ids``: ``measure_model`` in one call, or its steps:
``open_model`` (nothing loaded yet), a window of ids (``text_window``, ``ids_window``), then
``measure_scalings`` (the loss by position and copy retrieval by distance, from one forward per
scaling; ``save_ids`` writes the ids each forward ran). transformers, accelerate and gguf are the
optional ``measure`` extra and are imported inside ``transformers_backend`` only.
"""

from __future__ import annotations

from posemb_cli.runtime.measure import RULE, MeasuredRun, MeasuredScaling, measure_model, measure_scalings, open_model
from posemb_cli.runtime.protocol import LanguageModel, MemoryNeed, Separator, WindowLosses
from posemb_cli.runtime.scaling import RotaryExpectation, Scaling
from posemb_cli.runtime.tokens import TokenWindow, check_save_ids, ids_window, text_window, write_ids

__all__ = ["RULE", "LanguageModel", "MeasuredRun", "MeasuredScaling", "MemoryNeed", "RotaryExpectation", "Scaling",
           "Separator", "TokenWindow", "WindowLosses", "check_save_ids", "ids_window", "measure_model",
           "measure_scalings", "open_model", "text_window", "write_ids"]
