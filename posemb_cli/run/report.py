"""Result dataclasses and their JSON form (the stable contract: add keys, never rename)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

INSPECT_SCHEMA = "posemb.inspect/1"
COMPARE_SCHEMA = "posemb.compare/1"


@dataclass(frozen=True)
class ParamCounts:
    token: int | None  # None: the model's token table is unknown (none in the file, or of another width)
    position: int

    @property
    def total(self) -> int | None:
        return None if self.token is None else self.token + self.position

    @property
    def overhead(self) -> float | None:
        """Positional parameters as a fraction of the token table's."""
        return None if self.token is None else self.position / self.token

    def to_dict(self) -> dict:
        return {"token": self.token, "position": self.position, "total": self.total, "overhead": self.overhead}


@dataclass(frozen=True)
class SchemeReport:
    """Everything measured for one scheme on one batch."""

    scheme: str
    shapes: dict[str, list[int]]
    params: ParamCounts
    neighbour_similarity: list[dict]
    table: dict | None
    bands: list[dict] | None = None
    extra: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict, compare=False, repr=False)  # pictures only: never in JSON

    def to_dict(self) -> dict:
        out = {
            "scheme": self.scheme,
            "shapes": self.shapes,
            "params": self.params.to_dict(),
            "neighbour_similarity": self.neighbour_similarity,
            "table": self.table,
        }
        if self.bands is not None:
            out["bands"] = self.bands
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class InspectReport:
    config: dict
    result: SchemeReport

    def to_dict(self) -> dict:
        return {"schema": INSPECT_SCHEMA, "config": self.config, **self.result.to_dict()}


@dataclass(frozen=True)
class CompareReport:
    config: dict
    results: list[SchemeReport]

    def to_dict(self) -> dict:
        return {
            "schema": COMPARE_SCHEMA,
            "config": self.config,
            "schemes": [result.to_dict() for result in self.results],
        }


def _finite_or_none(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite_or_none(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_none(item) for item in value]
    return value


def to_json(document: dict) -> str:
    """One line of strict JSON: floats that are not finite become null."""
    return json.dumps(_finite_or_none(document), allow_nan=False)
