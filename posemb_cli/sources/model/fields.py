"""Checked reads of single fields from a model's config: every refusal names the file and the field.

A ``Fields`` is one JSON object of a config (the top level, ``text_config``, or a
rope block) with the label that names it in messages (``text_config.rope_parameters.``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from posemb_cli.errors import ConfigError
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT

__all__ = ["Fields", "config_error"]


def config_error(path: str, field: str, why: str) -> ConfigError:
    """``PATH: FIELD WHY`` as the exit-2 error, a setting of the config refused."""
    return ConfigError(path, f"{field} {why}")


@dataclass(frozen=True)
class Fields:
    """One JSON object of a config file, and how messages name its fields."""

    path: str
    values: dict
    prefix: str = ""

    def has(self, name: str) -> bool:
        return self.values.get(name) is not None

    def fail(self, name: str, why: str) -> ConfigError:
        return config_error(self.path, self.prefix + name, why)

    def number(self, name: str, *, default=None, integer: bool = False, positive: bool = True):
        """The field as a float (or int), ``default`` when absent; missing without a default is refused."""
        value = self.values.get(name, default)
        if value is None:
            raise self.fail(name, "is missing")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(name, f"must be a number, got {value!r}")
        if integer and value != int(value):
            raise self.fail(name, f"must be a whole number, got {value!r}")
        if integer and value > MAX_COUNT:
            raise self.fail(name, f"must be at most {MAX_COUNT_TEXT}, got {value!r}")
        if positive and value <= 0:
            raise self.fail(name, f"must be above 0, got {value!r}")
        return int(value) if integer else float(value)

    def optional(self, name: str, **kwargs):
        """The field checked as ``number``, or None when absent (or null)."""
        return self.number(name, **kwargs) if self.has(name) else None

    def numbers(self, name: str, length: int) -> tuple[float, ...]:
        """A list of ``length`` positive finite numbers (LongRoPE's per-pair factors)."""
        value = self.values.get(name)
        if value is None:
            raise self.fail(name, "is missing")
        if not isinstance(value, list) or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0 for x in value):
            raise self.fail(name, "must be a list of numbers above 0")
        if len(value) != length:
            raise self.fail(name, f"has {len(value)} entries; the rotary features make {length} pairs, one each")
        return tuple(float(x) for x in value)

    def flag(self, name: str, *, default: bool) -> bool:
        value = self.values.get(name, default)
        if not isinstance(value, bool):
            raise self.fail(name, f"must be true or false, got {value!r}")
        return value
