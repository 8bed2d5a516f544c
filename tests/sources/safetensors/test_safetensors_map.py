"""Float tensors of a .safetensors file are read as views of the file's memory map, equal to the library's read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from posemb_cli.sources.safetensors.tensor_map import mapped_tensor
from posemb_cli.sources.weights.tensor_files import open_tensor_file
from safetensors.torch import load_file, save_file


def _mapped_ranges(path: Path) -> list[tuple[int, int]]:
    ranges = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        if line.endswith(str(path)):
            low, high = line.split()[0].split("-")
            ranges.append((int(low, 16), int(high, 16)))
    return ranges


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "model.safetensors"
    generator = torch.Generator().manual_seed(0)
    save_file({"wpe.weight": torch.randn(64, 16, generator=generator),
               "half": torch.randn(9, 4, generator=generator).to(torch.bfloat16),
               "ids": torch.arange(6), "empty": torch.zeros(0, 3)}, str(path))
    return path


@pytest.mark.parametrize("name", ["wpe.weight", "half"])
def test_float_tensors_equal_the_library_read(saved: Path, name: str):
    mapped = mapped_tensor(str(saved), name)
    expected = load_file(str(saved))[name]
    assert mapped is not None and mapped.dtype == expected.dtype and mapped.shape == expected.shape
    assert torch.equal(mapped, expected)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_tensor_lies_inside_the_files_mapping(saved: Path):
    table = open_tensor_file(str(saved)).read("wpe.weight")
    ranges = _mapped_ranges(saved)
    assert ranges, "the file is not mapped"
    assert any(low <= table.data_ptr() < high for low, high in ranges)


@pytest.mark.parametrize("name", ["ids", "empty", "absent"])
def test_other_tensors_are_left_to_the_library(saved: Path, name: str):
    assert mapped_tensor(str(saved), name) is None


def test_writing_the_view_leaves_the_file_alone(saved: Path):
    mapped = mapped_tensor(str(saved), "wpe.weight")
    assert mapped is not None
    before = load_file(str(saved))["wpe.weight"].clone()
    mapped.fill_(7.0)  # copy-on-write: the process's own pages change, never the file
    assert torch.equal(load_file(str(saved))["wpe.weight"], before)
