"""Hypothesis strategies for the promise suite: flag values of every kind, and generated input files.

Sizes stay small on purpose: a value that is valid runs the whole analysis, so
valid counts are drawn from a few small numbers, and every huge value is one
that must be refused (past 2**40, or a memory estimate no machine meets).
"""

import io
import json
import struct

import numpy as np
import torch
from hypothesis import strategies as st

# Integers as a user may type them: the edge values the promise covers, and a few small valid ones.
INT_TEXTS = st.sampled_from([
    "0", "-1", "-7", "1", "2", "3", "8", "16", "0.5", "1.5", "-0.0", "nan", "inf", "-inf", "1e309", "1e3",
    str(2**40 + 1), str(2**62), str(2**63), str(2**64), str(10**30), "9" * 5000, "9" * 4000, "", " ", "abc", "0x10",
    "\u0663", "\uff11\uff16", "\u00b2", "1_6", "8 ", "--", "\x00", "\u202e8",
])
# Numbers (base, std, factors): the same edges, as floats.
FLOAT_TEXTS = st.sampled_from([
    "0", "-1", "0.5", "1", "2", "1.5", "10000", "nan", "-nan", "inf", "-inf", "1e309", "-1e309", "1e300",
    "1e-320", "5e-324", str(2**63), "", "abc", "\u0663", "1,5", "0x1p3", "NaN", "Infinity",
])
TEXTS = st.sampled_from(["", " ", "auto", "cpu", "cuda", "cuda:0", "cuda:-1", "cuda:99", "tpu", "float32",
                         "float16", "bfloat16", "float64", "int8", "learned", "sinusoidal", "rope", "alibi", "none",
                         "learned,learned", "rope,,alibi", ",", "half", "interleaved", "linear", "ntk", "dynamic",
                         "yarn", "llama3", "\u00e9", "x" * 300, "\x00"])

INT_FLAGS = ("--dim", "--ctx", "--vocab", "--batch", "--seq-len", "--seed", "--max-offset", "--heads",
             "--head-dim", "--original-ctx", "--position-offset")
FLOAT_FLAGS = ("--base", "--init-std", "--rope-factor", "--beta-fast", "--beta-slow", "--low-freq-factor",
               "--high-freq-factor", "--attention-factor")
TEXT_FLAGS = ("--device", "--dtype", "--rope-layout", "--rope-scaling")
# The flags each command takes (beyond those above, which compare and inspect share).
COMMAND_FLAGS = {
    "compare": (*INT_FLAGS[:-1], *FLOAT_FLAGS, *TEXT_FLAGS, "--schemes"),
    "inspect": (*INT_FLAGS[:-1], *FLOAT_FLAGS, *TEXT_FLAGS, "--scheme"),
    "order": (*INT_FLAGS[:-1], *FLOAT_FLAGS, *TEXT_FLAGS, "--schemes"),
    "bench": ("--dim", "--ctx", "--vocab", "--batch", "--seq-len", "--seed", "--base", "--init-std", "--device",
              "--dtype", "--schemes", "--repeats", "--warmup"),
    "sweep": ("--dim", "--ctx", "--base", "--vocab", "--batch", "--seq-len", "--seed", "--device", "--dtype",
              "--init-std", "--max-offset", "--schemes"),
}
# Small settings every generated run starts from, so that a valid value finishes in a fraction of a second.
SMALL = {
    "compare": ["--dim", "8", "--ctx", "16", "--vocab", "50", "--batch", "2", "-k", "2", "--device", "cpu"],
    "inspect": ["--dim", "8", "--ctx", "16", "--vocab", "50", "--batch", "2", "-k", "2", "--device", "cpu",
                "--no-plot"],
    "order": ["--dim", "8", "--ctx", "16", "--vocab", "50", "--batch", "2", "--device", "cpu"],
    "bench": ["--dim", "8", "--ctx", "16", "--vocab", "50", "--batch", "2", "--repeats", "1", "--warmup", "0",
              "--device", "cpu"],
    "sweep": ["--dim", "8", "--ctx", "16", "--vocab", "50", "--batch", "2", "-k", "2", "--device", "cpu"],
}


def flag_value(flag: str) -> st.SearchStrategy[str]:
    """Text a user might give ``flag``: number edges for numeric flags, names and garbage for the rest."""
    if flag in INT_FLAGS or flag in ("--repeats", "--warmup"):
        return INT_TEXTS
    if flag in FLOAT_FLAGS:
        return FLOAT_TEXTS
    if flag in ("--dim", "--ctx", "--base"):  # sweep's and bench's comma lists
        return st.one_of(INT_TEXTS, st.sampled_from(["8,16", "8,8", "8,", ",", "8,-1", "8,nan", "8," + "9" * 4400]))
    return TEXTS


@st.composite
def command_lines(draw) -> list[str]:
    """A command, its small settings, then one to three generated flag values (a later flag wins)."""
    command = draw(st.sampled_from(sorted(COMMAND_FLAGS)))
    flags = draw(st.lists(st.sampled_from(COMMAND_FLAGS[command]), min_size=1, max_size=3, unique=True))
    args = [command, *SMALL[command]]
    for flag in flags:
        args += [flag, draw(flag_value(flag))]
    if draw(st.booleans()):
        args.append("--json")
    return args


# ---- generated files ------------------------------------------------------------------------------------

SMALL_INTS = st.sampled_from([0, -1, 1, 2, 3, 8, 16, 49, 50, 2**40 + 1, 2**63, 10**30])
JSON_SCALARS = st.one_of(SMALL_INTS, st.sampled_from([0.5, 1.5, -2.0, float("inf"), float("nan"), 1e300]),
                         st.sampled_from(["", "8", "yarn", "llama3", "linear", "dynamic", "default", "x"]),
                         st.none(), st.booleans())


def nested(depth: int, *, brackets: str = "[]") -> bytes:
    """A JSON value nested ``depth`` levels deep."""
    return (brackets[0] * depth + brackets[1] * depth).encode()


@st.composite
def ids_files(draw) -> tuple[str, bytes]:
    """(suffix, bytes) of an ids file: JSON batches good and bad, .npy arrays good, truncated and odd."""
    kind = draw(st.sampled_from(["json", "json_values", "deep", "npy", "npy_cut", "npy_header", "garbage"]))
    if kind == "json":
        rows = draw(st.lists(st.lists(SMALL_INTS.filter(lambda v: abs(v) < 2**40), min_size=0, max_size=4),
                             min_size=0, max_size=3))
        return ".json", json.dumps(rows).encode()
    if kind == "json_values":
        value = draw(st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=3), max_leaves=6))
        return ".json", json.dumps(value).encode()
    if kind == "deep":
        return ".json", nested(draw(st.sampled_from([3, 65, 1000, 100_000])))
    dtype = draw(st.sampled_from(["<i8", "<i4", "<u2", "<f4", "|b1", "<c8"]))
    shape = draw(st.sampled_from([(2, 3), (1, 1), (0, 3), (3,), (2, 2, 2), ()]))
    array = np.zeros(shape, dtype=dtype) if dtype[1] != "i" else np.arange(
        int(np.prod(shape)), dtype=dtype).reshape(shape) % 50
    buffer = io.BytesIO()
    np.save(buffer, array)
    data = buffer.getvalue()
    if kind == "npy_cut":
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif kind == "npy_header":
        declared = draw(st.sampled_from(["(2**40, 2**20)", "(-1, 3)", "(2, 3", "'x'", "(2**63, 2)", "(1 << 70, 1)"]))
        header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {declared}, }}".encode()
        data = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header
    elif kind == "garbage":
        data = draw(st.binary(max_size=64))
    return ".npy", data


def _table_files() -> dict[str, bytes]:
    """A small real checkpoint (position table 'wpe.weight' (16, 8), token table (50, 8)) in every format."""
    from safetensors.torch import save

    generator = torch.Generator().manual_seed(0)  # the same bytes on every run, whatever ran before
    tables = {"wpe.weight": torch.randn(16, 8, generator=generator),
              "wte.weight": torch.randn(50, 8, generator=generator)}
    files = {".safetensors": save(tables)}
    buffer = io.BytesIO()
    torch.save(tables, buffer)
    files[".bin"] = buffer.getvalue()
    buffer = io.BytesIO()
    np.savez(buffer, **{name: value.numpy() for name, value in tables.items()})
    files[".npz"] = buffer.getvalue()
    buffer = io.BytesIO()
    np.save(buffer, tables["wpe.weight"].numpy())
    files[".npy"] = buffer.getvalue()
    return files


_TABLES: dict[str, bytes] = {}


def _safetensors_header(name: str, dtype: str, shape: list[int], offsets: list[int]) -> bytes:
    header = json.dumps({name: {"dtype": dtype, "shape": shape, "data_offsets": offsets}}).encode()
    header += b" " * (-len(header) % 8)
    return struct.pack("<Q", len(header)) + header


@st.composite
def checkpoint_files(draw) -> tuple[str, bytes]:
    """(suffix, bytes) of a checkpoint: a real one cut short, with bytes flipped, or with a lying header."""
    if not _TABLES:
        _TABLES.update(_table_files())
    suffix = draw(st.sampled_from(sorted(_TABLES)))
    data = _TABLES[suffix]
    kind = draw(st.sampled_from(["intact", "cut", "flipped", "header"]))
    if kind == "cut":
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif kind == "flipped":
        spots = draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=8))
        flipped = bytearray(data)
        for spot in spots:
            flipped[spot] ^= 0xFF
        data = bytes(flipped)
    elif kind == "header":
        suffix = ".safetensors"
        shape = draw(st.sampled_from([[16, 8], [2**24, 1024], [2**40, 2**30], [0, 8], [16], [-1, 8]]))
        dtype = draw(st.sampled_from(["F32", "F16", "BF16", "I64", "XX"]))
        size = max(0, int(np.prod(shape, dtype=object))) * 4
        offsets = draw(st.sampled_from([[0, size], [0, 4], [size, 0], [0, 2**63]]))
        data = _safetensors_header("wpe.weight", dtype, shape, offsets) + b"\0" * min(size, 512)
    return suffix, data


CONFIG_FIELDS = ("num_attention_heads", "head_dim", "hidden_size", "max_position_embeddings", "rope_theta",
                 "partial_rotary_factor", "vocab_size", "rope_scaling", "rope_parameters", "text_config")
SCALING_FIELDS = ("type", "rope_type", "factor", "original_max_position_embeddings", "low_freq_factor",
                  "high_freq_factor", "beta_fast", "beta_slow", "attention_factor", "mscale", "mscale_all_dim")


@st.composite
def config_files(draw) -> bytes:
    """A config.json: a small valid RoPE model with fields given wrong types, huge values, or deep nesting."""
    if draw(st.integers(0, 9)) == 0:
        return b'{"a": ' + nested(draw(st.sampled_from([65, 100_000]))) + b"}"
    fields = {"num_attention_heads": 2, "head_dim": 8, "max_position_embeddings": 16, "vocab_size": 50}
    for name in draw(st.lists(st.sampled_from(CONFIG_FIELDS), max_size=3, unique=True)):
        if name in ("rope_scaling", "rope_parameters"):
            block = {key: draw(JSON_SCALARS) for key in draw(st.lists(st.sampled_from(SCALING_FIELDS), max_size=4))}
            fields[name] = block if draw(st.integers(0, 4)) else draw(JSON_SCALARS)
        elif name == "text_config":
            fields[name] = dict(fields) if draw(st.booleans()) else draw(JSON_SCALARS)
        else:
            fields[name] = draw(JSON_SCALARS)
    return json.dumps(fields).encode()
