"""posemb: diagnostics for the input stage of a transformer.

The Python API is imported lazily, so ``import posemb_cli`` (and the CLI's
``--help``) does not pay for importing torch.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
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
    "load_checkpoint": "posemb_cli.sources.checkpoint",
    "read_rope_config": "posemb_cli.sources.model_config",
    "similarity_heatmap": "posemb_cli.measures.heatmap",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'posemb_cli' has no attribute {name!r}")
