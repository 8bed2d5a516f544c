"""Find a real model's learned position table (and its token table) in a checkpoint.

Names are matched with or without their prefixes (``transformer.wpe.weight``
matches ``wpe.weight``). Families that reserve leading rows are known: the
RoBERTa kin start real positions after ``padding_idx`` (offset pad + 1), the
OPT/BART kin at 2. Only the rows that real positions use are analysed.
"""

from __future__ import annotations

from dataclasses import dataclass

from posemb_cli.errors import PosembError, brief
from posemb_cli.sources.limits import MAX_COUNT, MAX_COUNT_TEXT, require_memory
from posemb_cli.sources.tensor_files import TensorFile, open_tensor_file

POSITION_NAMES = (
    "wpe.weight", "position_embeddings.weight", "embed_positions.weight", "position_embedding.weight",
    "pos_embed.weight", "pos_emb.weight", "positional_embedding.weight", "pos_embedding.weight",
    "wpe", "position_embeddings", "embed_positions", "position_embedding", "pos_embed", "pos_emb",
    "positional_embedding", "pos_embedding",
)
TOKEN_NAMES = (
    "wte.weight", "word_embeddings.weight", "embed_tokens.weight", "tok_embeddings.weight",
    "token_embedding.weight", "embed_in.weight", "tok_emb.weight", "shared.weight",
    "wte", "word_embeddings", "embed_tokens", "tok_embeddings", "token_embedding", "tok_emb",
)
# model_type -> how many leading rows the family reserves.
_PADDING_FAMILIES = frozenset({
    "roberta", "xlm-roberta", "xlm-roberta-xl", "camembert", "longformer", "roberta-prelayernorm",
    "data2vec-text", "ibert", "mpnet",
})
_OFFSET_TWO_FAMILIES = frozenset({"opt", "bart", "mbart", "plbart", "biogpt"})
_LISTED = 12


@dataclass(frozen=True)
class LoadedTable:
    """The rows of a checkpoint's position table that real positions use, and where they came from."""

    path: str
    key: str
    table: object  # (L, D) torch tensor: rows position_offset .. of the stored table
    position_offset: int
    offset_reason: str
    stored_rows: int
    stored_dtype: str
    vocab: int | None
    token_key: str | None
    kind: str

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


def find_position_key(tensors: TensorFile, key: str | None) -> str:
    """The name of the position table: ``--key`` if given, else the one known name present."""
    if key is not None:
        if key not in tensors.shapes:
            candidates = [n for n in tensors.shapes if _matches(n, POSITION_NAMES)] or list(tensors.shapes)
            raise PosembError(f"--key {key!r}: no such tensor in {tensors.path}; candidates: {_listing(candidates)}")
        if _matrix_shape(tensors.shapes[key]) is None:
            raise PosembError(f"--key {key!r}: shape {list(tensors.shapes[key])} is not a (rows, dim) table")
        return key
    if tensors.kind == "npy":
        name, shape = next(iter(tensors.shapes.items()))
        if _matrix_shape(shape) is None:
            raise PosembError(f"--checkpoint {tensors.path}: array of shape {list(shape)} is not a (rows, dim) table")
        return name
    found = [n for n, shape in tensors.shapes.items() if _matches(n, POSITION_NAMES) and _matrix_shape(shape)]
    if not found:
        raise PosembError(f"--checkpoint {tensors.path}: no position table found under the known names "
                          f"({', '.join(POSITION_NAMES[:4])}, ...); pick one with --key NAME from: "
                          f"{_listing(tensors.shapes)}")
    if len(found) > 1:
        raise PosembError(f"--checkpoint {tensors.path}: several position tables: {_listing(found)}; "
                          f"pick one with --key NAME")
    return found[0]


def find_token_key(tensors: TensorFile, dim: int) -> str | None:
    """The token embedding of the same width, when the file holds exactly one known one."""
    found = [n for n, shape in tensors.shapes.items()
             if _matches(n, TOKEN_NAMES) and len(shape) == 2 and shape[1] == dim]
    return found[0] if len(set(tensors.shapes[n] for n in found)) == 1 else None


def family_offset(key: str, model_config: dict | None) -> tuple[int, str]:
    """Leading rows the model family reserves, and why."""
    model_type = str((model_config or {}).get("model_type", "")).lower()
    pad = (model_config or {}).get("pad_token_id", 1)
    pad = pad if isinstance(pad, int) and not isinstance(pad, bool) and pad >= 0 else 1
    if model_type in _PADDING_FAMILIES:
        return pad + 1, f"{model_type}: positions start after padding_idx {pad} (config.json)"
    if model_type in _OFFSET_TWO_FAMILIES:
        return 2, f"{model_type}: learned positions carry an offset of 2 (config.json)"
    if model_type:
        return 0, f"{model_type}: no reserved rows"
    lowered = key.lower()
    if any(tag in lowered for tag in ("roberta", "camembert", "longformer")):
        return pad + 1, f"RoBERTa-style name: positions start after padding_idx {pad} (no config.json)"
    if _matches(key, ("embed_positions.weight", "embed_positions")):
        return 2, "OPT/BART-style name: learned positions carry an offset of 2 (no config.json)"
    return 0, "no reserved rows"


def _first_non_finite_row(table, block_rows: int = 4096) -> int | None:
    """The first row holding NaN or inf, checked block by block (no mask of the table's size)."""
    import torch

    for start in range(0, table.shape[0], block_rows):
        finite = torch.isfinite(table[start:start + block_rows]).all(dim=1)  # (block,)
        if not bool(finite.all()):
            return start + int((~finite).nonzero()[0, 0])
    return None


def load_checkpoint(path: str, *, key: str | None = None, position_offset: int | None = None) -> LoadedTable:
    """Read the position table (only that tensor where the format allows) and the token table's shape."""
    tensors = open_tensor_file(path)
    name = find_position_key(tensors, key)
    stored_rows, dim = _matrix_shape(tensors.shapes[name])
    if stored_rows < 2 or dim < 1:
        raise PosembError(f"--checkpoint {path}: table {name!r} has shape [{stored_rows}, {dim}]; "
                          f"a position table needs at least 2 rows and 1 feature")
    if position_offset is None:
        offset, reason = family_offset(name, tensors.model_config)
        if offset > stored_rows - 2:
            offset, reason = 0, f"{reason}; ignored: the table has only {stored_rows} rows"
    else:
        offset, reason = position_offset, "set by --position-offset"
        if not 0 <= offset <= stored_rows - 2:
            raise PosembError(f"--position-offset {brief(offset, 40)}: must be in [0, {stored_rows - 2}] "
                              f"for the {stored_rows}-row table {name!r}")
    if name in tensors.nbytes:  # sized from the file's header before a byte of it is read
        require_memory(f"--checkpoint {path}: tensor {name!r}", tensors.nbytes[name] + stored_rows * dim * 8,
                       detail=f"[{stored_rows}, {dim}] as stored and a copy")
    stored = tensors.read(name)
    if not stored.is_floating_point():
        raise PosembError(f"--checkpoint {path}: tensor {name!r} holds {stored.dtype}, not floating-point numbers")
    table = stored.reshape(stored_rows, dim)[offset:]  # (L, D): the rows real positions use
    row = _first_non_finite_row(table)
    if row is not None:
        raise PosembError(f"--checkpoint {path}: table {name!r} holds NaN or infinite values (first in row "
                          f"{row + offset}); a position table must be finite")
    token_key = find_token_key(tensors, dim)
    vocab = tensors.shapes[token_key][0] if token_key else None
    if vocab is not None and vocab > MAX_COUNT:  # the file sets --vocab: name it, not the flag
        raise PosembError(f"--checkpoint {path}: token table {token_key!r} declares {vocab} rows; "
                          f"at most {MAX_COUNT_TEXT} are allowed")
    return LoadedTable(
        path=path, key=name, table=table, position_offset=offset, offset_reason=reason,
        stored_rows=stored_rows, stored_dtype=str(stored.dtype).removeprefix("torch."), vocab=vocab,
        token_key=token_key, kind=tensors.kind)
