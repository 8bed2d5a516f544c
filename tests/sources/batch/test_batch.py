"""Reading token-id batches from JSON and .npy, and refusing bad ones."""

import io
import json

import numpy as np
import pytest
from posemb_cli.run.config import PosembError
from posemb_cli.sources.batch.ids import random_ids, read_ids


def test_json_and_npy_give_the_same_batch(tmp_path):
    rows = [[1, 2, 3], [4, 5, 6]]
    (tmp_path / "ids.json").write_text(json.dumps(rows))
    np.save(tmp_path / "ids.npy", np.array(rows, dtype=np.int32))
    for name in ("ids.json", "ids.npy"):
        ids = read_ids(str(tmp_path / name), 10)
        assert ids.dtype == np.int64 and ids.tolist() == rows


def test_stdin_json_and_npy():
    assert read_ids("-", 10, stdin=io.BytesIO(b"[[7, 8]]")).tolist() == [[7, 8]]
    buffer = io.BytesIO()
    np.save(buffer, np.array([[9]], dtype=np.uint16))
    assert read_ids("-", 10, stdin=io.BytesIO(buffer.getvalue())).tolist() == [[9]]


@pytest.mark.parametrize("content,message", [
    (b"[[1, 2], [3]]", "ragged"),
    (b"[]", "non-empty"),
    (b"[[]]", "empty"),
    (b"[[1, 2.5]]", "not an integer"),
    (b"[[true]]", "not an integer"),
    (b"[1, 2]", "list of lists"),
    (b"[[1, 10]]", "outside [0, 10)"),
    (b"[[-1]]", "outside [0, 10)"),
    (b"hello", "neither JSON nor .npy"),
    (b"\xff\xfe", "neither JSON nor .npy"),
    (b"\x93NUMPY garbage", "not a readable .npy"),
])
def test_bad_batches(tmp_path, content, message):
    path = tmp_path / "ids.bin"
    path.write_bytes(content)
    with pytest.raises(PosembError, match=message.replace("[", r"\[").replace(")", r"\)").replace(".", r"\.")):
        read_ids(str(path), 10)


@pytest.mark.parametrize("array,message", [
    (np.zeros((2, 2), dtype=np.float32), "not an integer type"),
    (np.zeros((2, 2, 2), dtype=np.int64), "shape"),  # one row (2,) is a batch of one now
    (np.zeros((0, 3), dtype=np.int64), "empty"),
    (np.zeros((2, 2), dtype=bool), "not an integer type"),
])
def test_bad_npy_arrays(tmp_path, array, message):
    np.save(tmp_path / "ids.npy", array)
    with pytest.raises(PosembError, match=message):
        read_ids(str(tmp_path / "ids.npy"), 10)


def test_missing_and_directory(tmp_path):
    with pytest.raises(PosembError, match="no such file"):
        read_ids(str(tmp_path / "nope.json"), 10)
    with pytest.raises(PosembError, match="is a directory"):
        read_ids(str(tmp_path), 10)


def test_random_ids_are_seeded_and_in_range():
    a, b = random_ids(3, 50, 7, seed=4), random_ids(3, 50, 7, seed=4)
    import torch

    assert a.shape == (3, 50) and a.dtype == torch.int64
    assert bool((a == b).all()) and int(a.min()) >= 0 and int(a.max()) < 7
