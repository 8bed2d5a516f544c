"""How the command line names the request's keys, and the refusals raised below it worded with them.

A layer below the request (``runtime``, ``sources``) names an option in a refusal by the request's key
(``errors.option``, ``errors.ValueRefusal``, ``errors.FileError`` with ``key``), never by a flag's spelling; the
CLI and the API word it here, once: the key's option is ``--`` and the key with dashes (``save_ids``:
``--save-ids``), but for the keys listed in ``SPELLED`` (a test holds the rule to every command's option data).
"""

from __future__ import annotations

from posemb_cli.errors import PosembError

__all__ = ["SPELLED", "flag_of", "worded"]

# the keys not spelled by the rule: a positional MODEL (compare's takes several), doctor's --format
SPELLED = {"model": "MODEL", "models": "MODEL", "model_config": "--config", "output_format": "--format"}


def flag_of(key: str) -> str:
    """The option the command line gives ``key`` with (``save_ids``: ``--save-ids``)."""
    return SPELLED.get(key) or "--" + key.replace("_", "-")


def worded(exc: PosembError) -> str:
    """The refusal's line as the command line names what it refuses."""
    return exc.worded(flag_of)
