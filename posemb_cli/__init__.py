"""posemb: diagnostics for the input stage of a transformer.

Every command is a function here (``posemb_cli.inspect(scheme="rope")``,
``posemb_cli.inspect_model(path)``, ``posemb_cli.doctor(path)``, ...) returning a typed
report: ``.to_dict()`` is the command's JSON document, and the report shows itself as the
terminal tables in Jupyter and in ``rich.print``. Everything is imported lazily, so
``import posemb_cli`` (and the CLI's ``--help``) does not pay for importing torch. Type checkers read the
names' types from ``__init__.pyi``; this module imports nothing of ours, so every layer may read its version.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    # the commands, one function each (posemb_cli.api), and the reports they return (posemb_cli.reports)
    **{name: "posemb_cli.api" for name in ("inspect", "inspect_model", "compare", "order", "precision", "padding",
                                            "doctor", "heads", "extend")},
    **{name: "posemb_cli.reports" for name in ("InspectReport", "CompareReport", "OrderReport", "PaddingReport",
                                                "PrecisionReport", "DoctorReport", "HeadsReport",
                                                "ExtendReport")},
    # the building blocks
    "TokenEmbedding": "posemb_cli.core.embeddings",
    "EmbeddingComposer": "posemb_cli.core.embeddings",
    "LearnedPositionalEmbedding": "posemb_cli.core.schemes.learned",
    "SinusoidalPositionalEmbedding": "posemb_cli.core.schemes.sinusoidal",
    "neighbour_similarity": "posemb_cli.measures.neighbours",
    "norm_stats": "posemb_cli.measures.neighbours",
    "row_norms": "posemb_cli.measures.neighbours",
    "PosembError": "posemb_cli.errors",
    "EmbeddingConfig": "posemb_cli.core.settings",
    "make_config": "posemb_cli.run.config",
    "TablePositionalEmbedding": "posemb_cli.core.schemes.table",
    "load_checkpoint": "posemb_cli.sources.weights.position_table",
    "read_rope_config": "posemb_cli.api",
    "similarity_heatmap": "posemb_cli.measures.heatmap",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'posemb_cli' has no attribute {name!r}")
