"""MODEL, or --config / --checkpoint: the one model a command reads, named once for every command.

A positional MODEL is resolved by ``sources.naming.model_file`` (a path, a Hugging Face id in the
local cache, ``ollama:NAME``): a model with weights (a GGUF file, weights with the config.json
beside them, a model directory holding them) is then read exactly as ``--checkpoint`` reads it, a
config alone as ``--config``. The two flags keep working as before; MODEL together with either is
refused. While the command runs, a refusal that names the file under ``--config`` or ``--checkpoint``
names it as MODEL, as the user typed it (``speaking_of``); the report's ``source`` gains ``resolved``:
the name, the path read and how it was found (``with_resolved``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from posemb_cli.errors import PosembError
from posemb_cli.run.command_flags import Flags

FLAG = "MODEL"
_Report = TypeVar("_Report")

__all__ = ["FLAG", "NamedModel", "model_flags", "name_model", "restated_notes", "speaking_of", "with_resolved"]


@dataclass(frozen=True)
class NamedModel:
    """A MODEL as typed and as found.

    Attributes:
        name: as typed. path: the file or directory read. has_weights: read as --checkpoint (else --config).
        found: how it was found, in words. config: the config.json read, where there is one.
    """

    name: str
    path: str
    has_weights: bool
    found: str
    config: str | None = None

    @property
    def key(self) -> str:
        """The flag's parameter it stands for: ``checkpoint`` or ``model_config``."""
        return "checkpoint" if self.has_weights else "model_config"

    def resolved(self) -> dict:
        """The JSON ``source.resolved`` object."""
        return {"name": self.name, "path": self.path, "found": self.found}

    def restate(self, message: str) -> str:
        """``message`` with ``--config PATH`` / ``--checkpoint PATH`` of this model's files said as MODEL."""
        paths = {self.path, os.path.abspath(self.path), *(p for p in (self.config,) if p)}
        if os.path.isdir(self.path):
            paths.add(os.path.join(self.path, "config.json"))
        for path in sorted(paths, key=len, reverse=True):
            # advice to run a command on the model names it as typed: "posemb inspect org/name"
            whole = rf"--(?:config|checkpoint) {re.escape(path)}(?![\w./-])"  # the path, not a longer one
            message = re.sub(rf"(posemb [a-z]+ ){whole}", lambda found: found.group(1) + self.name, message)
            shown = f"{FLAG} {self.name}" + ("" if path == self.name else f" ({path})")
            message = re.sub(whole, shown.replace("\\", "\\\\"), message)  # a literal replacement
        return message


def name_model(name: str) -> NamedModel:
    """Resolve a MODEL; refused (exit 2, one line) when it names nothing posemb reads, saying where it looked."""
    from posemb_cli.sources.naming.model_file import model_file

    found = model_file(name, FLAG, config_needed=False)  # a table alone is read as --checkpoint reads it
    return NamedModel(name, found.path, found.has_weights, found.found, found.config)


def model_flags(flags: Flags, *, needs_weights: str | None = None) -> tuple[Flags, NamedModel | None]:
    """The flags with MODEL standing in for ``--checkpoint`` (weights) or ``--config`` (a config alone).

    Args:
        needs_weights: the command, for one that reads weights only (``heads``): a config alone is refused.

    Returns:
        The flags to run with, and the model MODEL named (None when no MODEL was given).
    """
    name = flags.values.get("model")
    if name is None:
        return flags, None
    for key, flag in (("model_config", "--config"), ("checkpoint", "--checkpoint")):
        if flags.values.get(key) is not None:
            raise PosembError(f"{FLAG} {name} and {flag} {flags.values[key]} both name a model; give one ({FLAG} "
                              "takes a path, a Hugging Face id or ollama:NAME)")
    named = name_model(str(name))
    if needs_weights is not None and not named.has_weights:
        raise PosembError(f"{FLAG} {name}: {named.found}; {needs_weights} reads the query and key weights: name the "
                          "model with its weights (a model directory holding them, a .safetensors or .bin file with "
                          "its config.json beside it, or a .gguf file)")
    return flags.replace({**flags.values, named.key: named.path}), named


@contextmanager
def speaking_of(named: NamedModel | None) -> Iterator[None]:
    """Within: a refusal naming the model's files under --config or --checkpoint names it as MODEL instead."""
    try:
        yield
    except PosembError as exc:
        if named is not None and exc.args:
            exc.args = (named.restate(str(exc.args[0])), *exc.args[1:])
        raise


def restated_notes(note: Callable[[str], None] | None, named: NamedModel | None) -> Callable[[str], None] | None:
    """``note`` hearing what the run says about the model with its files said as MODEL (as refusals are)."""
    if note is None or named is None:
        return note
    return lambda line: note(named.restate(line))


def with_resolved(report: _Report, named: NamedModel | None) -> _Report:
    """The report with ``resolved`` in its source (each report type says where its source is: ``with_resolved``)."""
    if named is None:
        return report
    return report.with_resolved(named.resolved())  # type: ignore[attr-defined]
