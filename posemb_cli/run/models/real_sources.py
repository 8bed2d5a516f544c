"""``--config`` and ``--checkpoint`` through one classification: what to analyse for a real model.

The model's kind (``sources/model_kind.py``) decides: a learned (or stored
sinusoidal) table is read from the weights; RoPE and ALiBi come from the config
alone; a fixed sinusoidal table with no weights is built from its formula; the
learned relative-attention bias (T5) is read from the weights with its bucket
edges from the config beside them; DeBERTa's relative embeddings are refused
naming the kind. Nothing is guessed. The model comes as one ``ModelFile`` (MODEL, ``--config`` or
``--checkpoint``); a refusal about its files is a ``FileError``, worded by ``model_source.speaking_of``.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from posemb_cli.errors import ConfigError, FileError, PosembError
from posemb_cli.run.models.model_source import as_argument, read_as, said, speaking_of
from posemb_cli.sources.model.kind import ModelKind
from posemb_cli.sources.model.reading import ModelReading
from posemb_cli.sources.model.rope_model import RopeModel, rope_model_of
from posemb_cli.sources.naming.model_file import ModelFile, option_model
from posemb_cli.sources.naming.read import read_checkpoint_model, read_model, stored_token_table
from posemb_cli.sources.weights.position_table import (
    LoadedTable,
    load_checkpoint,
    model_kind_of,
    position_tables,
)
from posemb_cli.sources.weights.relative_bias import RelativeBiasTable, read_relative_bias
from posemb_cli.sources.weights.tensor_files import open_tensor_file

OFFSET_FLAG = "--position-offset"  # how the command line gives a table's offset, for the reason of the one read
_WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")


@dataclass(frozen=True)
class FormulaModel:
    """A model whose position signal its config gives in full: ALiBi, or a fixed sinusoidal table.

    Attributes:
        scheme: ``alibi`` or ``sinusoidal``, the posemb scheme that reproduces it.
        dim: D, the model width. ctx: L, the trained context (None: the config has none).
        heads: H (alibi). vocab: V from the config, or None.
    """

    path: str
    kind: ModelKind
    scheme: str
    dim: int
    ctx: int | None
    heads: int | None
    vocab: int | None
    ctx_field: str | None = None

    def source(self) -> dict:
        out = {"config": self.path, "model_type": self.kind.model_type, **self.kind.source(),
               "scheme": self.scheme, "dim": self.dim, "max_position_embeddings": self.ctx}
        if self.heads is not None:
            out["heads"] = self.heads
        if self.ctx is None:
            out["ctx_note"] = "the config states no context length: --ctx sets it"
        return out


@dataclass(frozen=True)
class RealModel:
    """One real model, classified, with what its kind needs loaded. Exactly one of the four is set.

    Attributes:
        model: the model as named. path: the file its kind was read from (its config.json, or the weights).
    """

    model: ModelFile
    path: str
    kind: ModelKind
    loaded: LoadedTable | None = None
    rope: RopeModel | None = None
    formula: FormulaModel | None = None
    bias: RelativeBiasTable | None = None
    notes: list[str] = field(default_factory=list)
    reading: ModelReading | None = None  # the model's hyperparameters and layers, where a config or header gives them

    @property
    def flag(self) -> str:
        """The flag whose reading read it: ``--config`` or ``--checkpoint``."""
        return read_as(self.model)

    def said(self, path: str | None = None, *, flag: str | None = None) -> str:
        """How a message names ``path`` (default: the file its kind was read from), as the user named the model."""
        return said(self.model, self.path if path is None else path, flag=flag)

    @property
    def part(self) -> LoadedTable | RopeModel | FormulaModel | RelativeBiasTable:
        part = self.loaded or self.rope or self.formula or self.bias
        if part is None:
            raise ValueError("a RealModel holds a table, a RoPE model, a formula model or a relative bias")
        return part

    @property
    def projected_tokens(self) -> tuple[int, int] | None:
        """(rows, width) of a stored token table narrower or wider than the model (OPT-350m: word_embed_proj_dim
        512 != hidden_size 1,024, projected to the hidden size), which the position table's width does not find."""
        reading = self.reading
        if self.loaded is None or self.loaded.vocab is not None:
            return None
        if reading is None or reading.token_table is None:  # no config: the weights' own projection tells
            projected = self.loaded.projected
            return None if projected is None else (projected.rows, projected.width)
        return reading.token_table if reading.token_table[1] != reading.hidden_size else None

    @property
    def vocab(self) -> int | None:
        projected = self.projected_tokens
        return projected[0] if projected is not None else self.part.vocab

    @property
    def token_note(self) -> str | None:
        projected = self.projected_tokens
        stored = None if self.loaded is None else self.loaded.projected
        if projected is not None and self.loaded is not None and stored is not None \
                and (self.reading is None or self.reading.token_table is None):
            return (f"token parameters from the stored token table {stored.key} [{stored.rows}, {stored.width}], "
                    f"projected to the position table's width {self.loaded.dim} by {stored.projection} (no "
                    "config.json: the weights' projection tells)")
        if projected is not None and self.reading is not None:
            return (f"token parameters from the stored token table [{projected[0]}, {projected[1]}], of another "
                    f"width than the model's {self.reading.hidden_size} (projected to it)")
        if self.loaded is not None:
            return self.loaded.token_note
        if self.bias is not None:
            return self.bias.token_note
        return None if self.vocab else "the config states no vocab_size; token parameters unknown"

    def source(self) -> dict:
        """The JSON ``source`` object: the part's own keys plus ``kind`` and ``decided_by``."""
        out = {**self.part.source(), **self.kind.source()}
        if self.reading is not None:
            out["decided_by"] = self.reading.decided_by
        if self.model.has_weights and self.loaded is None and self.bias is None:
            out["checkpoint"] = self.path
            out["analysed_from"] = ("its GGUF metadata" if self.reading is not None and self.reading.format == "gguf"
                                    else "config.json beside the weights")
        if not self.model.has_weights and self.loaded is not None:
            out["config"] = self.path
        if self.token_note and ("token_note" not in out or self.projected_tokens is not None):
            out["token_note"] = self.token_note
        return out


def _refuse_relative(kind: ModelKind, flag: str, path: str) -> FileError:
    if flag == "--config":
        return FileError(path, f"this model uses {kind.label} ({kind.decided_by}); its weights are needed: pass the "
                               "model directory with --checkpoint DIR")
    return FileError(path, f"this model uses {kind.label} ({kind.decided_by}); posemb analyses absolute tables, RoPE, "
                           f"ALiBi and T5's relative bias, not {kind.kind}")


def _formula(kind: ModelKind, file: str, scheme: str) -> FormulaModel:
    heads_field, heads = kind.heads()
    width_field, width = kind.width()
    ctx_field, ctx = kind.ctx()
    if width is None:
        raise ConfigError(file, f"{kind.model_type}: no model width (hidden_size, d_model, n_embd) found")
    if scheme == "alibi":
        if heads is None:
            raise ConfigError(file, f"{kind.model_type} uses ALiBi but no head count (num_attention_heads, n_head, "
                                    "n_heads) is given")
        if width % heads:
            raise ConfigError(file, f"{width_field} {width} is not a multiple of {heads_field} {heads}")
    elif ctx is None:
        raise ConfigError(file, "max_position_embeddings is missing (the sinusoidal table's rows)")
    return FormulaModel(path=file, kind=kind, scheme=scheme, dim=width, ctx=ctx,
                        heads=heads if scheme == "alibi" else None, vocab=kind.vocab(), ctx_field=ctx_field)


def _has_weights(folder: str) -> bool:
    return any(os.path.isfile(os.path.join(folder, name)) for name in _WEIGHT_FILES)


def _table_beside(model: ModelFile, file: str, kind: ModelKind, reading: ModelReading) -> RealModel:
    """A learned table read from the weights beside the config: the file opened as the config's, its table read as
    ``--checkpoint`` reads one."""
    folder = os.path.dirname(os.path.abspath(file))
    tensors = open_tensor_file(folder)
    tables = position_tables(tensors)
    if len(tables) > 1:
        raise FileError(file, f"this model has several position tables ({', '.join(tables)}); pick one with "
                              f"--checkpoint {folder} --key NAME")
    with speaking_of(option_model("checkpoint", folder)):
        loaded = load_checkpoint(folder, tensors=tensors, kind=kind, offset_given_as=OFFSET_FLAG)
    return RealModel(model, file, kind, loaded=loaded,  # the reading with the token table as stored
                     notes=[f"{kind.label}: read from the weights beside {file}"],
                     reading=dataclasses.replace(reading, token_table=stored_token_table(tensors, reading.hidden_size)))


def from_config(model: ModelFile) -> RealModel:
    """``--config PATH``: the kind from config.json; a learned table from weights beside it, when there."""
    reading = read_model(model.path)
    file, kind = reading.path, reading.kind
    if kind.kind == "rope":
        return RealModel(model, file, kind, rope=rope_model_of(reading), reading=reading)
    if kind.kind == "alibi":
        return RealModel(model, file, kind, formula=_formula(kind, file, "alibi"), reading=reading)
    if kind.kind in ("relative_bias", "relative_embeddings"):
        raise _refuse_relative(kind, "--config", file)
    if _has_weights(os.path.dirname(os.path.abspath(file))):
        return _table_beside(model, file, kind, reading)
    if kind.kind == "sinusoidal":
        return RealModel(model, file, kind, formula=_formula(kind, file, "sinusoidal"), reading=reading)
    raise FileError(file, f"this model uses a learned position table; pass the weights with --checkpoint (kind from "
                          f"{kind.decided_by})")


def from_checkpoint(model: ModelFile, *, key: str | None, position_offset: int | None) -> RealModel:
    """``--checkpoint PATH``: with a config.json beside the weights the architecture decides."""
    path = model.path
    tensors = open_tensor_file(path)
    kind = model_kind_of(tensors)
    if kind is not None and kind.kind in ("rope", "alibi"):
        for flag, value in (("--key", key), ("--position-offset", position_offset)):
            if value is not None:
                raise PosembError(f"{flag}: {said(model, path)} is a model using {kind.label} "
                                  f"({kind.decided_by}), which has no position table")
        reading = read_checkpoint_model(tensors, path)  # a .gguf file holds its own; other weights need a config
        if reading is None:
            raise FileError(path, f"this model uses {kind.label} ({kind.decided_by}); pass its config.json with "
                                  "--config")
        note = (f"{said(model, path)}: {kind.label} ({kind.decided_by}) acts inside attention, no position table; "
                f"analysed from its {'GGUF metadata' if reading.format == 'gguf' else 'config.json'}")
        if kind.kind == "rope":
            return RealModel(model, path, reading.kind, rope=rope_model_of(reading), notes=[note], reading=reading)
        formula = _formula(reading.kind, reading.path, "alibi")
        return RealModel(model, path, reading.kind, formula=formula, notes=[note], reading=reading)
    if kind is not None and kind.kind == "relative_bias":
        if position_offset is not None:
            raise PosembError(f"--position-offset: {said(model, path)} is a model using {kind.label} "
                              f"({kind.decided_by}), which has no position table")
        return RealModel(model, path, kind, bias=read_relative_bias(path, tensors, kind, key=key),
                         reading=read_checkpoint_model(tensors, path))
    if kind is not None and kind.kind == "relative_embeddings":
        raise _refuse_relative(kind, "--checkpoint", path)
    loaded = load_checkpoint(path, key=key, position_offset=position_offset, tensors=tensors, kind=kind,
                             offset_given_as=OFFSET_FLAG)
    return RealModel(model, path, kind or ModelKind("learned", f"tensor name {loaded.key!r}"),
                     loaded=loaded, reading=read_checkpoint_model(tensors, path))


def open_real_model(*, model: ModelFile | None, key: str | None = None,
                    position_offset: int | None = None) -> RealModel | None:
    """The real model named by MODEL, ``--checkpoint`` or ``--config`` (read as the flag it stands for reads it),
    or None when none is named."""
    if model is None:
        return None
    if model.has_weights:
        return from_checkpoint(model, key=key, position_offset=position_offset)
    return from_config(model)


def table_of_checkpoint(model: ModelFile, *, key: str | None, position_offset: int | None,
                        command: str) -> RealModel:
    """``--checkpoint`` for a command that reads position tables only: other kinds are refused by name."""
    real = from_checkpoint(model, key=key, position_offset=position_offset)
    if real.loaded is None:
        path, advice = model.path, as_argument(model, model.path, flag="--checkpoint")
        raise FileError(path, f"this model uses {real.kind.label} ({real.kind.decided_by}), no position table for "
                              f"{command}; analyse it with posemb inspect {advice}")
    return real
