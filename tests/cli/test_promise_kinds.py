"""One test per kind of break the hardening issue lists: each keeps the promise now.

In-process (CliRunner) where that captures the behaviour; a real process for
what needs one: a closed stdin, a terminal, /dev/full, an encoding, a
library warning printed by the interpreter.
"""

import io
import json
import math
import os
import pty
import struct
import subprocess
import sys

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from posemb_cli.sources.bounds import limits as limits
from typer.testing import CliRunner

from tests.refusals import check_refused

runner = CliRunner()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMALL = ["--dim", "16", "--ctx", "32", "--vocab", "50", "--batch", "2", "-k", "2", "--device", "cpu"]
COMMANDS = {
    "compare": ["compare", *SMALL],
    "inspect": ["inspect", *SMALL, "--no-plot"],
    "order": ["order", *SMALL],
    "sweep": ["sweep", *SMALL],
    "bench": ["bench", "--dim", "16", "--ctx", "32", "--vocab", "50", "--batch", "2", "--repeats", "1", "--warmup",
              "0", "--device", "cpu"],
}
EIGHT_GIB = 8 * 2**30


def posemb(args, *, env=None, **kwargs) -> subprocess.CompletedProcess:
    environ = {**os.environ, "PYTHONPATH": ROOT, **(env or {})}
    if "stdout" not in kwargs:
        kwargs["capture_output"] = True
    return subprocess.run([sys.executable, "-m", "posemb_cli", *args], env=environ, timeout=120, check=False,
                          **kwargs)


@pytest.fixture
def eight_gib_free(monkeypatch):
    """8 GiB free, whatever the machine: the refusals below must not depend on its memory."""
    monkeypatch.setattr(limits, "cpu_available_bytes", lambda: EIGHT_GIB)
    monkeypatch.setattr("posemb_cli.run.memory.cpu_available_bytes", lambda: EIGHT_GIB)


# ---- integers past 64 bits ----

@pytest.mark.parametrize("args,needle", [
    (["compare", "--vocab", str(2**63)], "--vocab must be at most 2**40"),
    (["compare", "--batch", str(2**63)], "--batch must be at most 2**40"),
    (["order", "--seq-len", str(2**64)], "--seq-len must be at most 2**40"),
    (["bench", "--repeats", str(2**63 - 1)], "--repeats must be at most 100,000"),
    (["bench", "--warmup", str(2**63)], "--warmup must be at most 100,000"),
    (["sweep", "--dim", f"8,{2**63}"], "--dim must be at most 2**40"),
])
def test_integers_past_64_bits_are_refused_naming_the_flag(args, needle):
    check_refused(args, needle)


def test_a_huge_batch_is_refused_before_any_tensor_is_drawn(eight_gib_free):
    # 2**40 passes the bound; the estimate (no draw of 2**40 x 32 ids) refuses it, naming only --batch.
    check_refused(["compare", "--batch", str(2**40), "--device", "cpu"], "--batch: this run needs about",
                  forbidden=("--vocab", "--dim", "--ctx", "--seq-len"))
    # Flags the user typed that drive the estimate are named with it; the defaults are not.
    check_refused(["compare", "--batch", str(2**40), "--seq-len", "64", "--device", "cpu"],
                  "--batch/--seq-len: this run needs about", forbidden=("--vocab", "--dim", "--ctx"))


# ---- deep JSON ----

def test_deep_ids_json_is_refused(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    check_refused(["compare", *SMALL, "--ids", str(path)], f"--ids {path}: JSON nested 100000 levels deep")


def test_deep_config_json_is_refused(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")
    check_refused(["inspect", "--config", str(path)], f"--config {path}: JSON nested 100001 levels deep")


# ---- unbounded reads ----

def test_ids_from_dev_zero_is_refused_with_the_limit():
    check_refused(["compare", *SMALL, "--ids", "/dev/zero"], "--ids /dev/zero: more than 64.0 MiB of JSON")


def _sparse(path, head: bytes, size: int) -> None:
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(size)


def test_sparse_safetensors_declaring_64_gib_is_refused_with_the_estimate(tmp_path, eight_gib_free):
    data = 64 * 2**30
    header = json.dumps({"wpe.weight": {"dtype": "F32", "shape": [2**24, 1024], "data_offsets": [0, data]}})
    header = header.encode() + b" " * (-len(header) % 8)
    path = tmp_path / "big.safetensors"
    _sparse(path, struct.pack("<Q", len(header)) + header, 8 + len(header) + data)
    check_refused(["inspect", "--checkpoint", str(path)], f"--checkpoint {path}")
    message = runner.invoke(app, ["inspect", "--checkpoint", str(path)]).stderr
    # refused by the table's own estimate (192 GiB: 64 GiB as stored and a float64 copy) before it is read; the
    # header's check maps nothing writable, so a map the system would refuse is no longer what refuses it
    assert "192.0 GiB ([16777216, 1024] as stored and a copy)" in message and "8.0 GiB is free" in message, message


def test_huge_npy_is_refused_with_the_estimate(tmp_path, eight_gib_free):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (16777216, 1024), }"
    header += " " * (64 - (len(header) + 11) % 64) + "\n"
    head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
    path = tmp_path / "table.npy"
    _sparse(path, head, len(head) + 64 * 2**30)
    check_refused(["inspect", "--checkpoint", str(path)], "reading it needs about 128.0 GiB")
    ids = tmp_path / "ids.npy"
    header = header.replace("<f4", "<i8")
    _sparse(ids, b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode(), len(head) + 128 * 2**30)
    check_refused(["compare", *SMALL, "--ids", str(ids)], f"--ids {ids}: reading it needs about 256.0 GiB")


def test_truncated_npy_ids_are_refused(tmp_path):
    path = tmp_path / "ids.npy"
    np.save(path, np.arange(6).reshape(2, 3))
    path.write_bytes(path.read_bytes()[:-8])
    check_refused(["compare", *SMALL, "--ids", str(path)], f"--ids {path}: truncated")


# ---- wrong blame ----

@pytest.mark.parametrize("fields,named", [
    ({"head_dim": 2**30, "max_position_embeddings": 16}, "head_dim"),
    ({"head_dim": 128, "max_position_embeddings": 2**39}, "max_position_embeddings"),
])
def test_a_huge_config_field_is_blamed_on_the_file_and_field(tmp_path, eight_gib_free, fields, named):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "num_attention_heads": 2, **fields}))
    check_refused(["inspect", "--config", str(path), "--device", "cpu"], f"--config {path}: ",
                  forbidden=("--vocab", "--dim", "--ctx", "--batch", "--seq-len"))
    message = runner.invoke(app, ["inspect", "--config", str(path), "--device", "cpu"]).stderr
    assert named in message, message


def test_a_config_count_past_the_bound_is_refused_naming_the_field(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "num_attention_heads": 2, "head_dim": 8,
                                "max_position_embeddings": 2**63}))
    check_refused(["inspect", "--config", str(path)], f"--config {path}: max_position_embeddings must be at most")


def test_a_huge_bench_ctx_is_blamed_on_ctx_alone(eight_gib_free):
    check_refused(["bench", "--ctx", str(2**40), "--device", "cpu"], "--ctx: this run needs about",
                  forbidden=("--vocab", "--dim", "--batch", "--seq-len"))


def test_memory_past_an_exbibyte_reads_more_than_1_eib():
    assert limits.format_bytes(2**70) == "more than 1 EiB"
    assert limits.format_bytes(3 * 2**50) == "3.0 PiB"


# ---- stdin ----

def test_ids_from_a_closed_stdin_is_refused():
    result = posemb(["compare", *SMALL, "--ids", "-"], stdin=None, pass_fds=(), preexec_fn=lambda: os.close(0))
    assert result.returncode == 2, result.stderr
    assert result.stdout == b"" and result.stderr.decode().count("\n") == 1
    assert b"--ids -: stdin is closed" in result.stderr


def test_ids_from_an_empty_stdin_is_refused():
    check_refused(["compare", *SMALL, "--ids", "-"], "--ids stdin: is empty")


def test_ids_from_a_terminal_is_refused_without_waiting():
    main, secondary = pty.openpty()
    try:
        result = posemb(["compare", *SMALL, "--ids", "-"], stdin=secondary)
    finally:
        os.close(main)
        os.close(secondary)
    assert result.returncode == 2 and b"--ids -: stdin is a terminal" in result.stderr, result.stderr


# ---- library warnings ----

def test_a_pickle_protocol_4_checkpoint_gives_one_line(tmp_path):
    path = tmp_path / "model.bin"
    torch.save({"wpe.weight": torch.randn(16, 8)}, path, pickle_protocol=4)
    result = posemb(["inspect", "--checkpoint", str(path), "--device", "cpu"], env={"PYTHONWARNINGS": "default"})
    assert result.returncode in (0, 2), result.stderr
    assert b"Warning" not in result.stderr, result.stderr
    assert result.stderr.decode().count("\n") == (1 if result.returncode == 2 else 0), result.stderr


# ---- output faults ----

@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_full_disk_ends_with_one_line_and_exit_1(command):
    with open("/dev/full", "w") as full:
        result = posemb([*COMMANDS[command], "--json"], stdout=full, stderr=subprocess.PIPE)
    assert result.returncode == 1, result.stderr
    assert result.stderr.decode() == "posemb: error: cannot write the output: No space left on device\n"


def test_a_closed_pipe_is_silent():
    process = subprocess.Popen([sys.executable, "-m", "posemb_cli", *COMMANDS["inspect"]],
                               env={**os.environ, "PYTHONPATH": ROOT}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader goes away before the first line
    _, errors = process.communicate(timeout=120)
    assert process.returncode in (0, 1) and errors == b"", errors


# ---- encodings and escape codes ----

def sinusoidal_first_offset(dim: int, ctx: int) -> float:
    """Mean over p of cos(row p, row p + 1) of the sinusoidal table, written out with NumPy."""
    p = np.arange(ctx)[:, None]
    i = np.arange(dim)[None, :]
    angle = p / 10000.0 ** (2 * (i // 2) / dim)
    table = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
    a, b = table[:-1], table[1:]
    return float(np.mean((a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))))


@pytest.mark.parametrize("command,env", [  # each command once, each encoding once: a process costs seconds
    ("compare", {"PYTHONIOENCODING": "ascii"}),
    ("inspect", {"PYTHONIOENCODING": "latin-1"}),
    ("order", {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}),
])
def test_a_stdout_without_unicode_gets_ascii_tables(command, env):
    result = posemb(COMMANDS[command], env=env)
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode("ascii")  # every byte is ASCII
    assert "+-" in text and "\u2500" not in text
    if command != "order":
        assert f"{sinusoidal_first_offset(16, 32):.4f}" in text


def _on_a_terminal(args, env) -> bytes:
    main, secondary = pty.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "posemb_cli", *args], stdout=secondary, stderr=secondary,
                                   env={**os.environ, "PYTHONPATH": ROOT, **env})
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal closed: the process is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait(timeout=120) == 0
    finally:
        os.close(main)
    return b"".join(chunks)


@pytest.mark.parametrize("env", [{"NO_COLOR": "1", "TERM": "xterm-256color"}, {"TERM": "dumb"}])
def test_no_color_and_dumb_terminals_get_no_escape_codes(env):
    output = _on_a_terminal(COMMANDS["inspect"], env)
    assert b"Neighbour similarity" in output
    assert b"\x1b" not in output


# ---- one rule for zero rows in every dtype ----

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_none_scheme_similarity_is_null_with_a_note_in_every_dtype(dtype):
    result = runner.invoke(app, ["inspect", "--scheme", "none", "--dtype", dtype, *SMALL, "--json"])
    assert result.exit_code == 0, result.output
    for row in json.loads(result.stdout)["neighbour_similarity"]:
        assert row["mean"] is None and row["min"] is None and row["max"] is None
        assert "a zero row has no direction" in row["note"]
    assert not any(isinstance(v, float) and math.isnan(v) for v in json.loads(result.stdout)["table"].values())


def test_a_file_set_vocab_past_the_bound_is_blamed_on_the_file(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "num_attention_heads": 2, "head_dim": 8,
                                  "max_position_embeddings": 16, "vocab_size": 2**63}))
    check_refused(["inspect", "--config", str(config)], f"--config {config}: vocab_size must be at most 2**40",
                  forbidden=("--vocab",))
    # An .npz whose token table header declares 2**50 rows (no data behind it: only headers are read).
    import zipfile

    table = io.BytesIO()
    np.save(table, np.random.default_rng(0).standard_normal((16, 8)).astype(np.float32))
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1125899906842624, 8), }"
    header += " " * (64 - (len(header) + 11) % 64) + "\n"
    (tmp_path / "bare").mkdir()  # no config.json beside it: the file's own token table sets --vocab
    archive = tmp_path / "bare" / "model.npz"
    with zipfile.ZipFile(archive, "w") as members:
        members.writestr("wpe.weight.npy", table.getvalue())
        members.writestr("wte.weight.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    check_refused(["inspect", "--checkpoint", str(archive)], f"--checkpoint {archive}: token table 'wte.weight' "
                  "declares 1125899906842624 rows", forbidden=("--vocab",))
