"""Inputs found by fuzzing under a 4 GiB address-space limit (``ulimit -v``): each exits 2, never 1.

Each once ended in "unexpected failure: MemoryError" (exit 1): a sparse safetensors file
declaring a 64 GiB table was memory-mapped before it was sized, and a config.json under the
64 MiB JSON bound parsed into more Python objects than the process could map. Each runs in
a subprocess whose address space is limited with ``setrlimit(RLIMIT_AS)``.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

resource = pytest.importorskip("resource")  # POSIX only
ROOT = str(Path(__file__).resolve().parents[2])
GIB = 2**30


def posemb_limited(args: list[str], address_space: int) -> subprocess.CompletedProcess:
    """``posemb ARGS`` in a process that may map at most ``address_space`` bytes."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, resource.getrlimit(resource.RLIMIT_AS)[1]))

    environ = {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "posemb_cli", *args], env=environ, capture_output=True, text=True,
                          timeout=300, check=False, preexec_fn=limit)


def assert_refused(result: subprocess.CompletedProcess, *needles: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_sparse_safetensors_past_the_address_space_is_refused_before_it_is_mapped(tmp_path):
    data = 64 * GIB
    header = json.dumps({"wpe.weight": {"dtype": "F32", "shape": [2**24, 1024], "data_offsets": [0, data]}}).encode()
    header += b" " * (-len(header) % 8)
    path = tmp_path / "big.safetensors"
    with open(path, "wb") as handle:  # sparse: 64 GiB declared, a few bytes on disk
        handle.write(struct.pack("<Q", len(header)) + header)
        handle.truncate(8 + len(header) + data)
    result = posemb_limited(["inspect", "--checkpoint", str(path)], 4 * GIB)
    assert_refused(result, f"--checkpoint {path}", "64.0 GiB", "ulimit -v")


def test_config_whose_objects_pass_the_address_space_is_refused_with_the_estimate(tmp_path):
    config = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 128}
    path = tmp_path / "config.json"
    count = 50_000_000 // 3  # 50 MB of empty objects: under the 64 MiB bound, about 1.2 GB once parsed
    path.write_text(json.dumps(config)[:-1] + ', "junk": [' + ",".join(["{}"] * count) + "]}")
    assert path.stat().st_size < 64 * 2**20
    result = posemb_limited(["inspect", "--config", str(path)], 2 * GIB)  # this one ended in MemoryError
    assert_refused(result, f"--config {path}", "reading it needs about", "of JSON", "ulimit -v")


def torch_maps_at_import() -> int:
    """Bytes of address space a process holds after ``import torch`` (a CUDA build maps far more)."""
    code = "import torch; print(open('/proc/self/status').read().split('VmSize:')[1].split()[0])"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    return int(result.stdout) * 1024 if result.returncode == 0 and result.stdout.strip().isdigit() else 0


def test_the_same_config_is_read_where_it_fits(tmp_path):
    if not 0 < torch_maps_at_import() < GIB:
        pytest.skip("this torch build maps more than 1 GiB at import, or the system does not say")
    config = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 128}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config)[:-1] + ', "junk": [' + ",".join(["0.5"] * 2_000_000) + "]}")
    result = posemb_limited(["inspect", "--config", str(path), "--json"], 4 * GIB)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["scheme"] == "rope"


@pytest.mark.parametrize("command", [["inspect", "--config"], ["extend", "--to", "4096"], ["doctor"]],
                         ids=["inspect", "extend", "doctor"])
def test_a_config_that_is_one_long_string_is_answered_or_refused(tmp_path, command):
    """50 MB in one string value ("padding": "xxx..."): once MemoryError (exit 1) in the depth check's regex."""
    config = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
              "max_position_embeddings": 2048, "vocab_size": 100, "rope_theta": 10000.0}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config)[:-1] + ', "padding": "' + "x" * 50_000_000 + '"}')
    args = [*command, str(path)] if command[0] != "extend" else ["extend", str(path), *command[1:]]
    result = posemb_limited(args, 4 * GIB)
    assert result.returncode in (0, 2, 3), result.stderr  # doctor exits 3 where it finds an error
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
    if result.returncode == 2:
        assert_refused(result, str(path))
