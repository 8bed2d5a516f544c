"""Small real-format model files under the names real model families use, written by the tests."""

import json
import os

import numpy as np
import torch


def random_table(rows: int, dim: int, seed: int = 0, *, smooth: bool = True) -> np.ndarray:
    """A float32 table with some structure (neighbouring rows alike), like a trained one."""
    rng = np.random.default_rng(seed)
    table = rng.normal(0.0, 0.02, size=(rows, dim))
    if smooth:
        table = np.cumsum(table, axis=0) + rng.normal(0.0, 0.02, size=(1, dim))
    return table.astype(np.float32)


def save_safetensors(path, tensors: dict) -> str:
    from safetensors.torch import save_file

    save_file({name: torch.from_numpy(np.ascontiguousarray(value)) for name, value in tensors.items()}, str(path))
    return str(path)


def save_torch(path, tensors: dict) -> str:
    torch.save({name: torch.from_numpy(np.ascontiguousarray(value)) for name, value in tensors.items()}, str(path))
    return str(path)


def write_config(folder, **fields) -> str:
    path = os.path.join(str(folder), "config.json")
    with open(path, "w") as handle:
        json.dump(fields, handle)
    return path


def gpt2_tensors(rows=40, dim=16, vocab=50) -> dict:
    """GPT-2 names: transformer.wpe.weight, transformer.wte.weight, and a block weight."""
    return {
        "transformer.wpe.weight": random_table(rows, dim, 1),
        "transformer.wte.weight": random_table(vocab, dim, 2, smooth=False),
        "transformer.h.0.attn.c_attn.weight": np.zeros((dim, 3 * dim), dtype=np.float32),
    }


def roberta_tensors(rows=42, dim=16, vocab=60) -> dict:
    """RoBERTa names: rows 0 and 1 are the padding rows, real positions start at 2."""
    return {
        "roberta.embeddings.position_embeddings.weight": random_table(rows, dim, 3),
        "roberta.embeddings.word_embeddings.weight": random_table(vocab, dim, 4, smooth=False),
        "roberta.embeddings.token_type_embeddings.weight": random_table(1, dim, 5, smooth=False),
        "roberta.embeddings.position_ids": np.arange(rows, dtype=np.int64)[None, :],
    }


def opt_tensors(rows=34, dim=16, vocab=70) -> dict:
    """OPT names: model.decoder.embed_positions.weight carries an offset of 2."""
    return {
        "model.decoder.embed_positions.weight": random_table(rows, dim, 6),
        "model.decoder.embed_tokens.weight": random_table(vocab, dim, 7, smooth=False),
    }
