"""Find a real model's learned position table (and its token table) in a checkpoint.

Names are matched with or without their prefixes (``transformer.wpe.weight``
matches ``wpe.weight``). Families that reserve leading rows are known: the
RoBERTa kin start real positions after ``padding_idx`` (offset pad + 1), the
OPT/BART kin at 2. Only the rows that real positions use are analysed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import FileError, ValueRefusal, brief, option
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT, require_memory
from posemb_cli.sources.model.families import POSITION_NAMES, TOKEN_NAMES
from posemb_cli.sources.model.kind import ModelKind, classify_config, classify_tensors
from posemb_cli.sources.weights.tensor_files import TensorFile, open_tensor_file

if TYPE_CHECKING:
    import torch

_LISTED = 12


@dataclass(frozen=True)
class LoadedTable:
    """The rows of a checkpoint's position table that real positions use, and where they came from."""

    path: str
    key: str
    table: torch.Tensor  # (L, D): rows position_offset .. of the stored table
    position_offset: int
    offset_reason: str
    stored_rows: int
    stored_dtype: str
    vocab: int | None
    token_key: str | None
    kind: str
    model_kind: ModelKind | None = None
    token_note: str | None = None
    class_row: torch.Tensor | None = None  # (D,) a vision table's class-token row, kept out of the analysis
    projected: ProjectedTokens | None = None  # a token table of another width that the weights project to D

    @property
    def rows(self) -> int:
        return int(self.table.shape[0])

    @property
    def dim(self) -> int:
        return int(self.table.shape[1])

    def source(self) -> dict:
        """The JSON ``source`` object."""
        return {
            "checkpoint": self.path, "key": self.key, "position_offset": self.position_offset,
            "offset_reason": self.offset_reason, "stored_rows": self.stored_rows,
            "stored_dtype": self.stored_dtype, "format": self.kind, "token_key": self.token_key,
            **(self.model_kind.source() if self.model_kind is not None else {}),
            **({"token_note": self.token_note} if self.token_note else {}),
            **({"class_token_row": {"row": 0, "norm": float(self.class_row.double().norm())}}
               if self.class_row is not None else {}),
        }


def _matches(name: str, known: tuple[str, ...]) -> bool:
    return any(name == suffix or name.endswith("." + suffix) for suffix in known)


def _listing(names) -> str:
    names = sorted(names)
    more = f" and {len(names) - _LISTED} more" if len(names) > _LISTED else ""
    return ", ".join(names[:_LISTED]) + more if names else "(none)"


def _matrix_shape(shape: tuple[int, ...]) -> tuple[int, int] | None:
    """(rows, dim) of a 2-D tensor, or of a (1, ..., 1, L, D) one; None otherwise."""
    if len(shape) >= 2 and all(size == 1 for size in shape[:-2]):
        return shape[-2], shape[-1]
    return None


def position_tables(tensors: TensorFile) -> list[str]:
    """The names of the tensors that are position tables by name and shape."""
    return sorted(n for n, shape in tensors.shapes.items() if _matches(n, POSITION_NAMES) and _matrix_shape(shape))


def find_position_key(tensors: TensorFile, key: str | None) -> str:
    """The name of the position table: ``--key`` if given, else the one known name present."""
    if key is not None:
        if key not in tensors.shapes:
            candidates = [n for n in tensors.shapes if _matches(n, POSITION_NAMES)] or list(tensors.shapes)
            raise ValueRefusal("key", repr(key), f"no such tensor in {tensors.path}; candidates: "
                                                 f"{_listing(candidates)}")
        if _matrix_shape(tensors.shapes[key]) is None:
            raise ValueRefusal("key", repr(key), f"shape {list(tensors.shapes[key])} is not a (rows, dim) table")
        return key
    if tensors.kind == "npy":
        name, shape = next(iter(tensors.shapes.items()))
        if _matrix_shape(shape) is None:
            raise FileError(tensors.path, f"array of shape {list(shape)} is not a (rows, dim) table")
        return name
    found = position_tables(tensors)
    if not found:
        raise FileError(tensors.path, f"no position table found under the known names ({', '.join(POSITION_NAMES[:4])}"
                                      f", ...); pick one with {option('key')} NAME from: {_listing(tensors.shapes)}; "
                                      "RoPE and ALiBi models keep no table: pass their config.json with "
                                      f"{option('model_config')}")
    if len(found) > 1:
        raise FileError(tensors.path, f"several position tables: {_listing(found)}; "
                                      f"pick one with {option('key')} NAME")
    return found[0]


@dataclass(frozen=True)
class ProjectedTokens:
    """A stored token table of another width than the position table's, and the projection the weights map it to
    that width with (OPT-350m: tokens ``word_embed_proj_dim`` 512 wide, ``project_in`` [1024, 512])."""

    key: str
    rows: int
    width: int
    projection: str


_PROJECTIONS = ("project_in.weight",)  # OPT's input projection: an nn.Linear weight, (out features, in features)


def projected_tokens(tensors: TensorFile, dim: int) -> ProjectedTokens | None:
    """The one token table of another width, where the file also holds an input projection of shape [dim, width]
    (the rule a file without config.json is read by); None when either is missing or ambiguous."""
    tables = sorted(n for n, shape in tensors.shapes.items() if _matches(n, TOKEN_NAMES) and len(shape) == 2)
    if len({tuple(tensors.shapes[n]) for n in tables}) != 1:
        return None
    rows, width = (int(size) for size in tensors.shapes[tables[0]])
    found = sorted(n for n, shape in tensors.shapes.items()
                   if _matches(n, _PROJECTIONS) and tuple(shape) == (dim, width))
    return ProjectedTokens(tables[0], rows, width, found[0]) if len(found) == 1 else None


def find_token_key(tensors: TensorFile, dim: int) -> str | None:
    """The token embedding of the same width, when the file holds exactly one known one."""
    found = [n for n, shape in tensors.shapes.items()
             if _matches(n, TOKEN_NAMES) and len(shape) == 2 and shape[1] == dim]
    return found[0] if len(set(tensors.shapes[n] for n in found)) == 1 else None


def model_kind_of(tensors: TensorFile) -> ModelKind | None:
    """The kind of the checkpoint's model: from the file itself (GGUF), config.json beside the weights, or
    tensor names."""
    if tensors.model_kind is not None:
        return tensors.model_kind
    if tensors.model_config is not None:
        return classify_config(tensors.model_config, tensors.path, part="(config.json)")
    return classify_tensors(tensors.shapes, tensors.path)


def refuse_token_key(tensors: TensorFile, key: str, vocab: int | None) -> None:
    """Exit 2 when ``--key`` names the token table: by its name, or rows equal to the vocabulary size."""
    if _matches(key, POSITION_NAMES):
        return
    rows = tensors.shapes[key][-2]  # find_position_key checked that it is a (rows, dim) table
    if _matches(key, TOKEN_NAMES):
        raise ValueRefusal("key", repr(key), f"is the token table ({rows} rows, one per token), not a position "
                                             "table", lead=" ")
    if vocab is not None and rows == vocab:
        raise ValueRefusal("key", repr(key), f"has {rows} rows, the vocabulary size: it is a token table, not a "
                                             "position table", lead=" ")


def token_table(tensors: TensorFile, position_key: str, dim: int,
                kind: ModelKind | None) -> tuple[str | None, int | None, str | None]:
    """The token table of the position table's width: its key, its rows, and why it is unknown when it is."""
    if any(tower in position_key.lower() for tower in ("vision", "visual")):  # CLIP: the text tower's tokens
        return None, None, (f"{position_key} belongs to a vision tower, which has no token table; "
                            "token parameters unknown")
    key = find_token_key(tensors, dim)
    if key is not None:
        return key, tensors.shapes[key][0], None
    others = sorted(n for n, shape in tensors.shapes.items() if _matches(n, TOKEN_NAMES) and len(shape) == 2)
    if others:
        width = tensors.shapes[others[0]][1]
        why = f"the token table {others[0]} has width {width}, not the position table's {dim}"
        if kind is not None and kind.fields.get("word_embed_proj_dim") == width:
            why += f" (word_embed_proj_dim {width} != hidden_size {kind.fields.get('hidden_size')})"
        return None, None, why + "; token parameters unknown"
    return None, None, "no token table in the weights (a vision or audio model?); token parameters unknown"


def _first_non_finite_row(table, block_values: int = 1 << 20) -> int | None:
    """The first row holding NaN or inf, checked block by block (``isfinite``'s temporaries a few MiB)."""
    import torch

    block_rows = max(1, block_values // max(int(table.shape[1]), 1))
    for start in range(0, table.shape[0], block_rows):
        finite = torch.isfinite(table[start:start + block_rows]).all(dim=1)  # (block,)
        if not bool(finite.all()):
            return start + int((~finite).nonzero()[0, 0])
    return None


def load_checkpoint(path: str, *, key: str | None = None, position_offset: int | None = None,
                    tensors: TensorFile | None = None, kind: ModelKind | None = None,
                    offset_given_as: str = "a position offset") -> LoadedTable:
    """Read the position table (only that tensor where the format allows) and the token table's shape.

    ``tensors`` and ``kind`` (the file already opened and classified) are read again when not given;
    ``offset_given_as`` names how the caller takes ``position_offset``, for the offset's reason.
    """
    tensors = tensors or open_tensor_file(path)
    kind = kind or model_kind_of(tensors)
    name = find_position_key(tensors, key)
    if key is not None:
        refuse_token_key(tensors, key, kind.vocab() if kind is not None else None)
    matrix = _matrix_shape(tensors.shapes[name])
    if matrix is None:
        raise FileError(path, f"tensor {name!r} has shape {list(tensors.shapes[name])}; "
                              "a position table is (rows, features)")
    stored_rows, dim = matrix
    if stored_rows < 2 or dim < 1:
        raise FileError(path, f"table {name!r} has shape [{stored_rows}, {dim}]; "
                              f"a position table needs at least 2 rows and 1 feature")
    if position_offset is None:
        offset, reason = (kind or ModelKind("learned", "", origin=path)).position_offset(name, tensors.shapes,
                                                                                     given_as=offset_given_as)
        if offset > stored_rows - 2:
            offset, reason = 0, f"{reason}; ignored: the table has only {stored_rows} rows"
    else:
        offset, reason = position_offset, f"set by {offset_given_as}"
        if not 0 <= offset <= stored_rows - 2:
            raise ValueRefusal("position_offset", brief(offset, 40), f"must be in [0, {stored_rows - 2}] for the "
                                                                     f"{stored_rows}-row table {name!r}")
    if name in tensors.nbytes:  # sized from the file's header before a byte of it is read
        require_memory(path, tensors.nbytes[name] + stored_rows * dim * 8, about=f"tensor {name!r}",
                       detail=f"[{stored_rows}, {dim}] as stored and a copy")
    stored = tensors.read(name)
    if not stored.is_floating_point():
        raise FileError(path, f"tensor {name!r} holds {stored.dtype}, not floating-point numbers")
    table = stored.reshape(stored_rows, dim)[offset:]  # (L, D): the rows real positions use
    row = _first_non_finite_row(table)
    if row is not None:
        raise FileError(path, f"table {name!r} holds NaN or infinite values (first in row "
                              f"{row + offset}); a position table must be finite")
    token_key, vocab, token_note = token_table(tensors, name, dim, kind)
    if vocab is not None and vocab > MAX_COUNT:  # the file sets --vocab: name it, not the flag
        raise FileError(path, f"token table {token_key!r} declares {vocab} rows; "
                              f"at most {MAX_COUNT_TEXT} are allowed")
    return LoadedTable(
        path=path, key=name, table=table, position_offset=offset, offset_reason=reason,
        stored_rows=stored_rows, stored_dtype=str(stored.dtype).removeprefix("torch."), vocab=vocab,
        token_key=token_key, kind=tensors.kind, model_kind=kind, token_note=token_note,
        class_row=stored.reshape(stored_rows, dim)[0] if "class token" in reason else None,
        projected=projected_tokens(tensors, dim) if token_key is None else None)
