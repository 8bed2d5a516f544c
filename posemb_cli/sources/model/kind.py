"""Tell the kind of position a model uses, before any analysis, from its config or its tensor names.

Pure Python (no torch): a config's ``model_type``, ``position_embedding_type``,
``alibi``, ``relative_attention_num_buckets``, ``relative_attention``,
``sinusoidal_pos_embds`` and rope fields decide; a bare weights file is told by
its tensor names. The result says how it was decided and carries what the kind
needs: heads, width and context under the family's own field names, and for a
learned table the rows the family reserves (``position_offset``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from posemb_cli.errors import FileError, PosembError, option
from posemb_cli.sources.model import families as fam

_ROPE_FIELDS = ("rope_theta", "rope_scaling", "rope_parameters", "rotary_pct", "rotary_emb_base",
                "partial_rotary_factor", "rotary_dim", "qk_rope_head_dim")
KIND_LABELS = {
    "learned": "a learned position table", "sinusoidal": "a fixed sinusoidal position table",
    "rope": "RoPE (rotary position embedding)", "alibi": "ALiBi (a linear distance bias per head)",
    "relative_bias": "a learned relative-attention bias (T5 buckets x heads)",
    "relative_embeddings": "learned relative position embeddings (DeBERTa)", "none": "no position signal",
}


def _matches(name: str, known: tuple[str, ...]) -> bool:
    return any(name == suffix or name.endswith("." + suffix) for suffix in known)


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def first_field(fields: dict, names: tuple[str, ...]) -> tuple[str | None, int | None]:
    """The first of ``names`` that ``fields`` holds as a positive whole number, and its value."""
    for name in names:
        if _int(fields.get(name)) is not None:
            return name, fields[name]
    return None, None


@dataclass(frozen=True)
class ModelKind:
    """What a model uses for position, how that was decided, and the facts the kind needs.

    Attributes:
        kind: one of ``model_families.KINDS``.
        decided_by: the field or tensor name that decided, e.g. ``config.json model_type 'gpt2'``.
        model_type: the config's ``model_type`` (None for a bare weights file).
        fields: the config's fields (the text model's for a multimodal config); empty without a config.
        origin: the file that was read.
        key: the config key that decided, as the file names it at its top (``model_type``,
            ``position_embedding_type``), or None where a tensor or a GGUF architecture decided.
    """

    kind: str
    decided_by: str
    model_type: str | None = None
    fields: dict = field(default_factory=dict, repr=False)
    origin: str = ""
    key: str | None = None

    @property
    def label(self) -> str:
        return KIND_LABELS[self.kind]

    def source(self) -> dict:
        """The keys this step adds to JSON ``source``."""
        return {"kind": self.kind, "decided_by": self.decided_by}

    def heads(self) -> tuple[str | None, int | None]:
        return first_field(self.fields, fam.HEAD_FIELDS)

    def width(self) -> tuple[str | None, int | None]:
        return first_field(self.fields, fam.WIDTH_FIELDS)

    def ctx(self) -> tuple[str | None, int | None]:
        return first_field(self.fields, fam.CTX_FIELDS)

    def vocab(self) -> int | None:
        return _int(self.fields.get("vocab_size"))

    def position_offset(self, key: str, shapes: dict, *, given_as: str = "a position offset") -> tuple[int, str]:
        """Leading rows of the learned table ``key`` that real positions do not use, and why.

        Args:
            given_as: how the reader's caller takes an offset, for the reason's advice where the file leaves it open
                (the CLI's option).
        """
        model_type = self.model_type
        if model_type in fam.PADDING_FAMILIES:
            pad = _int(self.fields.get("pad_token_id")) if self.fields.get("pad_token_id") != 0 else 0
            if pad is None:
                raise PosembError(f"{self.origin}: {model_type} positions start after padding_idx, but "
                                  f"pad_token_id is {self.fields.get('pad_token_id')!r}; give "
                                  f"{option('position_offset')}")
            return pad + 1, f"{model_type}: positions start after padding_idx {pad} (config.json pad_token_id)"
        if model_type in fam.OFFSET_TWO_FAMILIES:
            return 2, f"{model_type}: learned positions carry an offset of 2 (config.json)"
        if _class_row(model_type, key, shapes):
            return 1, f"{model_type or 'vision'}: row 0 is the class token's, kept apart; patch positions follow"
        if model_type:
            return 0, f"{model_type}: no reserved rows"
        lowered = key.lower()
        if any(tag in lowered for tag in ("roberta", "camembert", "longformer")):
            return 2, "RoBERTa-family name: positions start after padding_idx 1 (no config.json; RoBERTa's pad)"
        if _matches(key, ("embed_positions.weight", "embed_positions")):
            project_in = key.rsplit("embed_positions", 1)[0] + "project_in.weight"
            if project_in in shapes:  # OPT's input projection beside its table: OPTLearnedPositionalEmbedding
                return 2, (f"no config.json: {project_in} is OPT's (word_embed_proj_dim), whose learned positions "
                           "carry an offset of 2")
            return 0, ("no config.json: embed_positions is OPT's and BART's (offset 2) and Whisper's (offset 0); "
                       f"rows from 0, give {given_as} 2 for OPT or BART")
        return 0, "no reserved rows (no config.json)"


def _class_row(model_type: str | None, key: str, shapes: dict) -> bool:
    """Whether row 0 of the table ``key`` is a vision model's class-token position."""
    if model_type in fam.CLASS_ROW_FAMILIES or (model_type == "clip" and "vision" in key):
        return True
    if model_type is None:
        prefix = key.rsplit("embeddings.", 1)[0] + "embeddings." if "embeddings." in key else ""
        return any(name in shapes for name in (prefix + "cls_token", prefix + "class_embedding"))
    return False


def _text_fields(top: dict) -> dict:
    nested = top.get("text_config")
    if isinstance(nested, dict) and not any(name in top for name in fam.WIDTH_FIELDS):
        return {**nested, "model_type": top.get("model_type")}
    return top


def classify_config(top: dict, path: str, *, part: str = "") -> ModelKind:
    """The kind of a model from its ``config.json`` object; ``FileError`` (exit 2) when nothing in it tells.

    Args:
        top: the whole config object.
        path: the file, for messages.
        part: the part of ``path`` it is, where ``path`` is the weights' (``(config.json)``).
    """
    origin = f"{path} {part}" if part else path
    fields = _text_fields(top)
    model_type = top.get("model_type") if isinstance(top.get("model_type"), str) else None
    mt = (model_type or "").lower()

    def kind(name: str, why: str, key: str = "model_type") -> ModelKind:
        return ModelKind(name, f"config.json {why}", model_type, fields, origin, key)

    attn: dict = fields["attn_config"] if isinstance(fields.get("attn_config"), dict) else {}
    if mt == "mpt":
        if attn.get("alibi", True) is not True:
            raise FileError(path, f"mpt attn_config.alibi {attn.get('alibi')!r} (a learned table): not modelled; "
                                  "only MPT with ALiBi is", part=part)
        if attn.get("alibi_bias_max", 8) != 8:
            raise FileError(path, f"mpt attn_config.alibi_bias_max {attn.get('alibi_bias_max')!r} is not modelled; "
                                  "only 8, the paper's slopes", part=part)
        return kind("alibi", "model_type 'mpt' (attn_config.alibi)")
    if mt in fam.ALIBI_FAMILIES:
        return kind("alibi", f"model_type {model_type!r}")
    if fields.get("alibi") is True:
        return kind("alibi", "alibi true", "alibi")
    if mt in fam.RELATIVE_BIAS_FAMILIES or "relative_attention_num_buckets" in fields:
        why = f"model_type {model_type!r}" if mt in fam.RELATIVE_BIAS_FAMILIES else "relative_attention_num_buckets"
        return kind("relative_bias", why, "model_type" if mt in fam.RELATIVE_BIAS_FAMILIES
                    else "relative_attention_num_buckets")
    if mt in fam.RELATIVE_EMBEDDING_FAMILIES:
        if fields.get("relative_attention") is True:
            return kind("relative_embeddings", f"model_type {model_type!r}, relative_attention true")
        return kind("learned", f"model_type {model_type!r}, relative_attention false")
    position_type = fields.get("position_embedding_type")
    if isinstance(position_type, str):
        if position_type == "absolute":
            return kind("learned", "position_embedding_type 'absolute'", "position_embedding_type")
        if position_type in ("rotary", "rope"):
            return kind("rope", f"position_embedding_type {position_type!r}", "position_embedding_type")
        if position_type.startswith("relative"):
            return kind("relative_embeddings", f"position_embedding_type {position_type!r}", "position_embedding_type")
        raise FileError(path, f"position_embedding_type {position_type!r} is not modelled", part=part)
    if mt == "distilbert" and fields.get("sinusoidal_pos_embds") is True:
        return kind("sinusoidal", "model_type 'distilbert', sinusoidal_pos_embds true")
    if mt in fam.LEARNED_FAMILIES:
        return kind("learned", f"model_type {model_type!r}")
    if mt in fam.ROPE_FAMILIES:
        return kind("rope", f"model_type {model_type!r}")
    rope_field = next((name for name in _ROPE_FIELDS if name in fields), None)
    if rope_field is not None:
        return kind("rope", rope_field, rope_field)
    raise FileError(path, f"cannot tell what model_type {model_type!r} uses for position (no "
                          "position_embedding_type, alibi, rope or relative-attention field); not modelled", part=part)


def classify_tensors(shapes: dict[str, tuple[int, ...]], origin: str) -> ModelKind | None:
    """The kind of a bare weights file from its tensor names; None when no name tells."""
    for names, kind in ((fam.RELATIVE_BIAS_NAMES, "relative_bias"),
                        (fam.RELATIVE_EMBEDDING_NAMES, "relative_embeddings"),
                        (fam.POSITION_NAMES, "learned"), (fam.ROPE_NAMES, "rope")):
        found = sorted(name for name in shapes if _matches(name, names))
        if found:
            return ModelKind(kind, f"tensor name {found[0]!r}", None, {}, origin)
    return None
