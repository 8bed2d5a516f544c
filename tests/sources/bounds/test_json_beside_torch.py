"""A config.json whose parsed objects fit, but not beside the torch the command imports next: exit 2, never 1.

Under ``ulimit -v 4 GiB`` a 50 MB config.json (well under the 64 MiB bound) once ended in
"unexpected failure: MemoryError": its estimate fit the address space left before the parse,
the objects stayed, and ``import torch`` then had no room for its libraries (a CUDA build maps
several GiB; the same import can also abort the process from C++ with ``std::bad_alloc``).
Here torch is a CPU build (about 0.5 GiB), so the subprocess gets the limit that leaves the
same gap: room for the parse's estimate and half of torch's libraries, measured on this machine.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from posemb_cli.errors import PosembError
from posemb_cli.sources.bounds import json_limits
from posemb_cli.sources.bounds.json_limits import parse_bytes, parse_json

from tests.cli.test_fuzz_limits import GIB, assert_refused, posemb_limited

CONFIG = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 128}


def _nested_config(tmp_path):
    """50 MB of one-element lists nested ten deep: 2.2 GB of lists once parsed (the densest JSON there is)."""
    path = tmp_path / "config.json"
    item = "[" * 10 + "]" * 10
    path.write_text(json.dumps(CONFIG)[:-1] + ', "junk": [' + ",".join([item] * (50_000_000 // 21)) + "]}")
    assert path.stat().st_size < 64 * 2**20
    return path


def _before_reading() -> tuple[int, int]:
    """(bytes of address space the CLI holds when it reads a config, what ``import torch`` will add) in a fresh
    process: its modules and NumPy loaded, torch not yet."""
    code = ("import posemb_cli.cli.app, numpy, sys; assert 'torch' not in sys.modules; "
            "from posemb_cli.sources.bounds.import_reserve import torch_import_reserve; "
            "print(open('/proc/self/status').read().split('VmSize:')[1].split()[0], torch_import_reserve())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    mapped, reserve = out.stdout.split()
    return int(mapped) * 1024, int(reserve)


def test_a_parse_that_fits_only_without_torch_is_refused_with_both_sizes(tmp_path):
    mapped, reserve = _before_reading()
    if not reserve:
        pytest.skip("torch is not installed as a package with its own libraries")
    path = _nested_config(tmp_path)
    needed = parse_bytes(path.read_bytes())
    limit = mapped + needed + reserve // 2  # the parse fits; the parse and torch do not
    result = posemb_limited(["inspect", "--config", str(path), "--json"], limit)
    assert_refused(result, f"--config {path}", "reading it needs about", "of JSON", "torch's libraries",
                   "ulimit -v")


@pytest.mark.parametrize("command", [["inspect", "--config"], ["extend", "--to", "1024"], ["doctor"]],
                         ids=["inspect", "extend", "doctor"])
def test_the_published_case_at_4_gib_never_ends_in_exit_1(tmp_path, command):
    """extend once deep-copied the whole config (its 2.2 GB of lists) to write each engine's edit: MemoryError."""
    result = posemb_limited([*command, str(_nested_config(tmp_path)), "--json"], 4 * GIB)
    assert result.returncode in (0, 2), result.stderr
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
    if result.returncode == 2:
        assert_refused(result, "reading it needs about", "of JSON")


def test_a_parse_that_runs_out_of_memory_is_refused_with_the_estimate(monkeypatch):
    def exhausted(_text):
        raise MemoryError

    monkeypatch.setattr(json_limits.json, "loads", exhausted)
    with pytest.raises(PosembError, match=r"^--config c.json: reading it ran out of memory \(parsing 2 B of JSON "
                                          r"into Python objects, estimated at about \d+ B\); give a smaller file$"):
        parse_json(b"[]", "--config c.json")


def test_a_number_python_will_not_convert_is_not_readable_json():
    with pytest.raises(PosembError, match=r"^--config c.json: not readable JSON \(Exceeds the limit"):
        parse_json(b'{"x": ' + b"1" * 5000 + b"}", "--config c.json")
