"""The JSON Schemas (draft 2020-12) of every document the tool prints, shipped as package data.

One self-contained file per document: ``compare``, ``inspect``, ``order``,
``bench`` and ``sweep`` (each sweep line is an inspect object). The keys and
their meaning are described in docs/json-contract.md. Plain standard library:
no torch or numpy, so ``posemb schema NAME`` stays instant.
"""

from __future__ import annotations

import json
from importlib import resources

SCHEMA_NAMES = ("compare", "inspect", "order", "bench", "sweep", "precision", "padding", "doctor", "heads", "extend")

__all__ = ["SCHEMA_NAMES", "load_schema", "schema_text"]


def schema_text(name: str) -> str:
    """The schema file of one document, as shipped.

    Args:
        name: one of ``SCHEMA_NAMES``.

    Returns:
        The JSON text of ``NAME.schema.json``.

    Raises:
        KeyError: ``name`` is not one of ``SCHEMA_NAMES``.
    """
    if name not in SCHEMA_NAMES:
        raise KeyError(name)
    return resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")


def load_schema(name: str) -> dict:
    """The schema of one document as a dict (see ``schema_text``)."""
    return json.loads(schema_text(name))
