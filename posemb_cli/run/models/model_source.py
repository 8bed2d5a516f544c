"""MODEL, or --config / --checkpoint: the one model a command reads, resolved and worded once for every command.

A positional MODEL is resolved by ``sources.naming.model_file`` (a path, a Hugging Face id in the local cache,
``ollama:NAME``) into a ``ModelFile`` (``name_model``): a model with weights (a GGUF file, weights with the
config.json beside them, a model directory holding them) is then read exactly as ``--checkpoint`` reads it, a
config alone as ``--config``; which of the three the request names is ``request.model``'s. The readers refuse a
file with a ``FileError`` about the file alone; here, and only here, a refusal is worded with how the user named it
(``said``, ``speaking_of``): ``--config PATH``, or ``MODEL name (path)`` for a file MODEL named. The report's
``source`` gains ``resolved``: the name, the path read and how it was found (``with_resolved``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

from posemb_cli.errors import ConfigError, FileError, PosembError
from posemb_cli.sources.naming.model_file import MODEL, ModelFile

FLAG = "MODEL"  # how a message names the model the positional argument named
_READ_AS = {"model_config": "--config", "checkpoint": "--checkpoint"}
_Report = TypeVar("_Report")

__all__ = ["FLAG", "as_argument", "name_model", "read_as", "said", "speaking_of", "with_resolved"]


def read_as(model: ModelFile) -> str:
    """The flag whose reading reads the model: the one that named it, or for MODEL the one a file of its kind
    stands for (``--checkpoint`` with weights, else ``--config``)."""
    return _READ_AS[model.key]


def _as_typed(model: ModelFile, path: str) -> bool:
    """Whether ``path`` is the model MODEL named (its name, its path, or its config.json)."""
    return model.via == MODEL and (path == model.name or path in model.paths)


def said(model: ModelFile, path: str, *, flag: str | None = None) -> str:
    """How a message names ``path``, a file of ``model``: ``MODEL name (path)`` for a path MODEL named (``MODEL
    name`` where the path is the name as typed), else the flag and the path.

    Args:
        flag: the flag the file is read as where not the model's own (``--config`` for its settings).
    """
    if _as_typed(model, path):
        return f"{FLAG} {model.name}" + ("" if path == model.name else f" ({path})")
    return f"{flag or read_as(model)} {path}"


def as_argument(model: ModelFile, path: str, *, flag: str | None = None) -> str:
    """How a command line names ``path``, a file of ``model``, in advice (``posemb inspect ...``): the name MODEL was
    typed as, else the flag and the path."""
    if _as_typed(model, path):
        return model.name
    return f"{flag or read_as(model)} {path}"


def _worded(model: ModelFile, error: FileError) -> PosembError:
    words = said(model, error.path, flag="--config" if isinstance(error, ConfigError) else None)
    return PosembError(f"{words}{' ' + error.part if error.part else ''}: {error.detail}")


@contextmanager
def speaking_of(model: ModelFile | None) -> Iterator[None]:
    """Within: a refusal about one of the model's files names it as the user named it (``said``); a refusal about
    any other input (an ``--ids`` file) passes as it was raised."""
    try:
        yield
    except FileError as exc:
        if model is None or exc.key is not None or not model.holds(exc.path):
            raise
        raise _worded(model, exc) from None


def name_model(name: str, *, config_needed: bool = False) -> ModelFile:
    """Resolve a MODEL; refused (exit 2, one line) when it names nothing posemb reads, saying where it looked.

    Args:
        config_needed: refuse weights without a config.json beside them (else a table alone is read as
            ``--checkpoint`` reads it).
    """
    from posemb_cli.sources.naming.model_file import model_file

    try:
        return model_file(name, config_needed=config_needed)
    except FileError as exc:
        raise PosembError(f"{FLAG}{' ' + exc.path if exc.path else ''}: {exc.detail}") from None


def with_resolved(report: _Report, model: ModelFile | None) -> _Report:
    """The report with ``resolved`` in its source where MODEL named the model (each report type says where its
    source is: ``with_resolved``)."""
    if model is None or model.via != MODEL:
        return report
    return report.with_resolved(model.resolved())  # type: ignore[attr-defined]
