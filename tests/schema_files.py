"""Validate a document against one of the shipped JSON Schema files, read straight from the package folder."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

SCHEMAS = Path(__file__).resolve().parent.parent / "posemb_cli" / "schemas"


def validate(document: dict, name: str) -> None:
    """Raise jsonschema.ValidationError unless ``document`` follows ``schemas/NAME.schema.json``."""
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
