"""Where a checkpoint keeps each layer's query and key projections and the norms around them, by tensor name.

Hugging Face layouts, under a layer's ``...layers.N.``:

    self_attn.q_proj.weight, self_attn.k_proj.weight (and .bias)   separate projections
    self_attn.qkv_proj.weight                                       fused rows [q; k; v] (Phi-3)
    attention.query_key_value.weight (and .bias)                    fused per head [q_h; k_h; v_h] (GPT-NeoX)
    input_layernorm.weight (and .bias)                              the norm before attention
    self_attn.q_norm / k_norm, self_attn.q_layernorm / k_layernorm  norms on the projected queries and keys

GGUF (llama.cpp), under ``blk.N.``: ``attn_q``, ``attn_k`` (and biases), ``attn_qkv`` (rows [q; k; v]),
``attn_norm``, ``attn_q_norm``, ``attn_k_norm``. Any other tensor that normalises queries or keys is
refused by name: posemb would not apply it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from posemb_cli.errors import FileError

__all__ = ["FUSED_PER_HEAD", "FUSED_ROWS", "LayerNames", "QKNames", "find_qk_names"]

FUSED_ROWS, FUSED_PER_HEAD = "rows q; k; v", "per head q_h; k_h; v_h"
_HF = {"q": "self_attn.q_proj", "k": "self_attn.k_proj", "norm": "input_layernorm"}
_HF_FUSED = {"self_attn.qkv_proj": FUSED_ROWS, "attention.query_key_value": FUSED_PER_HEAD}
_HF_QK_NORMS = {"q_norm": ("self_attn.q_norm", "self_attn.q_layernorm"),
                "k_norm": ("self_attn.k_norm", "self_attn.k_layernorm")}
_GGUF = {"q": "attn_q", "k": "attn_k", "norm": "attn_norm"}
_GGUF_FUSED = {"attn_qkv": FUSED_ROWS}
_GGUF_QK_NORMS = {"q_norm": ("attn_q_norm",), "k_norm": ("attn_k_norm",)}
_QK_NORM_WORDS = re.compile(r"(^|[._])(q|k|query|key)_?(norm|layernorm|ln)")
_LAYER = {"hf": re.compile(r"^(?P<stem>(?:.+\.)?layers\.)(?P<index>\d+)\.(?P<rest>.+)$"),
          "gguf": re.compile(r"^(?P<stem>blk\.)(?P<index>\d+)\.(?P<rest>.+)$")}


@dataclass(frozen=True)
class LayerNames:
    """One layer's tensors by role (``q``, ``k``, ``qkv``, ``norm``, ``q_norm``, ``k_norm``, each ``.weight``;
    ``*_bias`` the matching ``.bias``), the names as stored."""

    layer: int
    names: dict[str, str] = field(default_factory=dict)

    def get(self, role: str) -> str | None:
        return self.names.get(role)

    @property
    def biases(self) -> list[str]:
        return [name for role, name in self.names.items() if role.endswith("_bias")]


@dataclass(frozen=True)
class QKNames:
    """Every rotating layer's tensor names, and how the projections are stored (``fused`` None: separate)."""

    fused: str | None
    layers: dict[int, LayerNames]


def _by_stem(names, file_format: str) -> dict[str, dict[int, dict[str, str]]]:
    found: dict[str, dict[int, dict[str, str]]] = {}
    pattern = _LAYER["gguf" if file_format == "gguf" else "hf"]
    for name in names:
        match = pattern.match(name)
        if match:
            found.setdefault(match["stem"], {}).setdefault(int(match["index"]), {})[match["rest"]] = name
    return found


def _roles(rests: dict[str, str], file_format: str) -> tuple[dict[str, str], str | None]:
    """A layer's tensors by role, and the fused layout where q and k are one tensor."""
    table, fused_table, qk_norms = ((_GGUF, _GGUF_FUSED, _GGUF_QK_NORMS) if file_format == "gguf"
                                    else (_HF, _HF_FUSED, _HF_QK_NORMS))
    stems = dict(table)
    fused = next((stem for stem in fused_table if f"{stem}.weight" in rests), None)
    if fused is not None and f"{table['q']}.weight" not in rests:
        stems = {"qkv": fused, "norm": table["norm"]}
    for role, candidates in qk_norms.items():
        stems[role] = next((stem for stem in candidates if f"{stem}.weight" in rests), candidates[0])
    roles: dict[str, str] = {}
    for role, stem in stems.items():
        for part, suffix in (("", ".weight"), ("_bias", ".bias")):
            if stem + suffix in rests:
                roles[role + part] = rests[stem + suffix]
    return roles, fused_table[fused] if "qkv" in roles and fused is not None else None


def _refuse(path: str, why: str) -> FileError:
    return FileError(path, why)


def _unmodelled_norms(rests: dict[str, str], roles: dict[str, str]) -> list[str]:
    used = set(roles.values())
    return sorted(name for rest, name in rests.items() if _QK_NORM_WORDS.search(rest) and name not in used)


def find_qk_names(shapes: dict[str, tuple[int, ...]], file_format: str, rope_layers: list[int], *,
                  expected: dict[str, tuple[int, ...]], path: str) -> QKNames:
    """The names of every rotating layer's projections and norms, their shapes checked.

    Args:
        shapes: the checkpoint's tensor names and shapes (rows first).
        file_format: ``gguf`` or another (Hugging Face names).
        rope_layers: the layers that rotate (the reading's layer map).
        expected: role -> shape: ``q``, ``k`` and ``qkv`` (whichever the checkpoint uses).
        path: the checkpoint, for messages.
    """
    stems = _by_stem(shapes, file_format)
    usable = {}
    for stem, layers in stems.items():
        roles, _fused = _roles(layers.get(rope_layers[0], {}), file_format)
        if ("q" in roles and "k" in roles) or "qkv" in roles:
            usable[stem] = layers
    wanted = {stem: layers for stem, layers in usable.items()
              if all(shapes[name] == expected.get(role) for role, name in
                     _roles(layers[rope_layers[0]], file_format)[0].items() if role in ("q", "k", "qkv"))}
    if not wanted:
        if usable:
            stem, layers = next(iter(usable.items()))
            roles = _roles(layers[rope_layers[0]], file_format)[0]
            seen = ", ".join(f"{roles[r]} {list(shapes[roles[r]])}" for r in ("q", "k", "qkv") if r in roles)
            want = ", ".join(f"{role} {list(shape)}" for role, shape in expected.items())
            raise _refuse(path, f"the query/key projections do not have the model's shape: {seen}; expected {want}")
        known = ("attn_q/attn_k, attn_qkv" if file_format == "gguf" else
                 "self_attn.q_proj/k_proj, self_attn.qkv_proj (Phi-3), attention.query_key_value (GPT-NeoX)")
        first = next(iter(stems.values()), {}).get(rope_layers[0], {})
        held = ", ".join(sorted(first)[:12]) or "no per-layer tensors"
        raise _refuse(path, f"no query and key projections under the names posemb reads ({known}); layer "
                            f"{rope_layers[0]} holds {held}")
    if len(wanted) > 1:
        raise _refuse(path, f"query/key projections of the model's shape under {len(wanted)} prefixes "
                            f"({', '.join(sorted(wanted))}): posemb cannot tell which is the text model")
    layers = next(iter(wanted.values()))
    out: dict[int, LayerNames] = {}
    fused_of_first = _roles(layers[rope_layers[0]], file_format)[1]
    for index in rope_layers:
        rests = layers.get(index, {})
        roles, fused = _roles(rests, file_format)
        if not (("q" in roles and "k" in roles) or "qkv" in roles) or fused != fused_of_first:
            raise _refuse(path, f"layer {index}: its query/key projections are missing or stored unlike layer "
                                f"{rope_layers[0]}'s")
        for role in ("q", "k", "qkv"):
            if role in roles and shapes[roles[role]] != expected.get(role):
                raise _refuse(path, f"{roles[role]} is {list(shapes[roles[role]])}, expected "
                                    f"{list(expected.get(role, ()))}")
        unmodelled = _unmodelled_norms(rests, roles)
        if unmodelled:
            raise _refuse(path, f"{unmodelled[0]} normalises queries or keys in a way posemb does not model")
        out[index] = LayerNames(index, roles)
    return QKNames(fused_of_first, out)
