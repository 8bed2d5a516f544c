"""posemb: diagnostics for the input stage of a transformer.

The Python API is imported lazily, so ``import posemb_cli`` (and the CLI's
``--help``) does not pay for importing torch.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    "TokenEmbedding": "posemb_cli.embeddings",
    "EmbeddingComposer": "posemb_cli.embeddings",
    "LearnedPositionalEmbedding": "posemb_cli.schemes.learned",
    "SinusoidalPositionalEmbedding": "posemb_cli.schemes.sinusoidal",
    "neighbour_similarity": "posemb_cli.metrics",
    "norm_stats": "posemb_cli.metrics",
    "row_norms": "posemb_cli.metrics",
    "PosembError": "posemb_cli.config",
    "EmbeddingConfig": "posemb_cli.config",
    "make_config": "posemb_cli.config",
    "TablePositionalEmbedding": "posemb_cli.schemes.checkpoint_table",
    "load_checkpoint": "posemb_cli.checkpoint",
    "read_rope_config": "posemb_cli.hf_config",
    "similarity_heatmap": "posemb_cli.heatmap",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'posemb_cli' has no attribute {name!r}")
