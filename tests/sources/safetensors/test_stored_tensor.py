"""A safetensors tensor's rows read straight into a NumPy buffer: the same values safetensors' own reader gives."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from posemb_cli.errors import PosembError
from posemb_cli.sources.safetensors.header import read_safetensors_header
from posemb_cli.sources.safetensors.stored import StoredTensor, stored_tensor
from safetensors import safe_open
from safetensors.torch import save_file

DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32, "F64": torch.float64}


def _bits(tensor: torch.Tensor) -> np.ndarray:
    integer = {2: torch.int16, 4: torch.int32, 8: torch.int64}[tensor.element_size()]
    return tensor.contiguous().view(integer).numpy()


@pytest.fixture()
def saved(tmp_path):
    generator = torch.Generator().manual_seed(0)
    tensors = {f"{name}.{shape}": (torch.randn(*shape, generator=generator) * 3).to(dtype)
               for name, dtype in DTYPES.items() for shape in ((7, 5), (11,), (2, 3, 4))}
    tensors["ids"] = torch.arange(6)
    tensors["scalar"] = torch.tensor(1.5)
    path = str(tmp_path / "t.safetensors")
    save_file(tensors, path)
    return path, tensors


def test_rows_are_safetensors_own_values(saved):
    path, tensors = saved
    header = read_safetensors_header(path, path)
    with safe_open(path, framework="pt") as handle:
        for name, tensor in tensors.items():
            located = stored_tensor(header, path, name)
            if tensor.dtype not in DTYPES.values() or tensor.dim() == 0:
                assert located is None, name
                continue
            assert located is not None and located.shape == tuple(tensor.shape)
            rows = tensor.shape[0]
            for start, stop in ((0, rows), (1, rows), (rows - 1, rows), (0, 1)):
                buffer = np.full(located.row_size * rows + 3, 7, dtype=located.element)  # larger than needed
                got = located.read_rows(start, stop, buffer)
                expected = _bits(handle.get_tensor(name)[start:stop])
                assert got.shape == tuple(expected.shape)
                np.testing.assert_array_equal(got.view(expected.dtype), expected)
                assert np.shares_memory(got, buffer)  # read into the caller's buffer, nothing allocated
                assert (buffer[got.size:] == 7).all()  # and no further


def test_a_wrong_buffer_and_a_short_file_are_refused(saved, tmp_path):
    path, tensors = saved
    located = stored_tensor(read_safetensors_header(path, path), path, "F32.(7, 5)")
    with pytest.raises(ValueError):
        located.read_rows(0, 7, np.empty(35, dtype=np.float64))
    with pytest.raises(ValueError):
        located.read_rows(0, 7, np.empty(34, dtype=np.float32))
    beyond = StoredTensor(path, located.offset + 10**9, "F32", (7, 5))
    with pytest.raises(PosembError, match="truncated"):
        beyond.read_rows(0, 7, np.empty(35, dtype=np.float32))
