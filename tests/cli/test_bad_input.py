"""Every bad input: exit 2, one line on stderr naming the flag or file, nothing on stdout."""

import json

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.refusals import check_refused

runner = CliRunner()

BAD_FLAGS = [
    (["--dim", "0"], "--dim"),
    (["--dim", "-3"], "--dim"),
    (["--dim", "abc"], "--dim"),
    (["--dim", "2.5"], "--dim"),
    (["--ctx", "0"], "--ctx"),
    (["--vocab", "0"], "--vocab"),
    (["--batch", "0"], "--batch"),
    (["--seq-len", "0"], "--seq-len"),
    (["--max-offset", "0"], "--max-offset"),
    (["--ctx", "16", "--seq-len", "17"], "--seq-len 17 exceeds --ctx 16"),
    (["--ctx", "16", "--max-offset", "16"], "--max-offset 16 must be below --ctx 16"),
    (["--init-std", "-0.1"], "--init-std"),
    (["--init-std", "nan"], "--init-std"),
    (["--init-std", "inf"], "--init-std"),
    (["--base", "1"], "--base"),
    (["--base", "0.5"], "--base"),
    (["--base", "inf"], "--base"),
    (["--base", "nan"], "--base"),
    (["--dtype", "int8"], "--dtype"),
    (["--device", "tpu"], "--device"),
    (["--seed", "-1"], "--seed"),
    (["--vocab", "1000000000", "--dim", "1000000"], "GiB"),
    (["--bogus"], "--bogus"),
]


@pytest.mark.parametrize("command", ["compare", "inspect"])
@pytest.mark.parametrize("json_flag", [[], ["--json"]])
@pytest.mark.parametrize("args,needle", BAD_FLAGS)
def test_bad_flags(command, json_flag, args, needle):
    check_refused([command, *args, *json_flag], needle)


@pytest.mark.parametrize("args,needle", [
    (["compare", "--schemes", "learned,rotary9"], "--schemes"),
    (["compare", "--schemes", ""], "--schemes"),
    (["compare", "--schemes", "learned,learned"], "--schemes"),
    (["inspect", "--scheme", "rotary9"], "--scheme"),
])
def test_bad_schemes(args, needle):
    check_refused([*args, "--json"], needle)


def test_cuda_when_absent():
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is present")
    check_refused(["compare", "--device", "cuda", "--json"], "--device cuda")
    check_refused(["inspect", "--device", "cuda:0"], "--device cuda:0")


def _write(path, content):
    if isinstance(content, np.ndarray):
        np.save(path, content)
    else:
        path.write_bytes(content)
    return str(path)


@pytest.mark.parametrize("name,content,needle", [
    ("ids.json", b"[[1, 2], [3]]", "ragged"),
    ("ids.json", b"[]", "--ids"),
    ("ids.json", b"[[1, 2.0]]", "not an integer"),
    ("ids.json", b"[[1, 40000]]", "outside [0, 32000)"),
    ("ids.txt", b"1 2 3", "neither JSON nor .npy"),
    ("ids.npy", np.ones((2, 2), dtype=np.float64), "not an integer type"),
    ("ids.npy", np.ones((2, 600), dtype=np.int64), "sequence length 600 exceeds --ctx 512"),
    ("ids.npy", np.empty((0, 4), dtype=np.int64), "empty"),
])
@pytest.mark.parametrize("command", ["compare", "inspect"])
def test_bad_ids_files(tmp_path, command, name, content, needle):
    path = _write(tmp_path / name, content)
    check_refused([command, "--ids", path, "--json"], needle)


def test_missing_and_unreadable_ids(tmp_path):
    check_refused(["compare", "--ids", str(tmp_path / "missing.json")], "no such file")
    check_refused(["compare", "--ids", str(tmp_path)], "is a directory")


def test_bad_stdin():
    result = runner.invoke(app, ["compare", "--ids", "-", "--json"], input="not json")
    assert result.exit_code == 2 and result.stdout == "" and "--ids stdin" in result.stderr


def test_unexpected_failure_exits_1_with_traceback_only_under_debug(monkeypatch):
    import posemb_cli.run.analysis as analysis

    def boom(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(analysis, "run_schemes", boom)
    result = runner.invoke(app, ["compare", "--json"])
    assert result.exit_code == 1 and result.stdout == ""
    assert "kaboom" in result.stderr and "Traceback" not in result.stderr
    result = runner.invoke(app, ["compare", "--json", "--debug"])
    assert result.exit_code == 1 and "Traceback" in result.stderr


def test_no_json_written_for_a_valid_but_refused_config():
    result = runner.invoke(app, ["compare", "--ctx", "4", "--max-offset", "9", "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    with pytest.raises(json.JSONDecodeError):
        json.loads(result.stdout)
