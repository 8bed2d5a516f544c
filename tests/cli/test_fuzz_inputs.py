"""Inputs found by fuzzing every subcommand: each bad one exits 2 with one line, each edge one works.

Every bad input here once gave exit 1 (an internal failure), exit 0 (silently
accepted), output on stdout before the refusal, or a message naming a flag
the user never typed.
"""

import json

import numpy as np
import posemb_cli.run.analysis
import pytest
import torch
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.refusals import check_refused

runner = CliRunner()
SMALL = ["--vocab", "50", "--batch", "2", "--device", "cpu"]
ALL = ("learned", "sinusoidal", "rope", "alibi", "none")


def refused(args, needle, *, forbidden=()):
    for json_flag in ([], ["--json"]):
        check_refused([*args, *json_flag], needle, forbidden=forbidden)


def ok_json(args) -> list[dict]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize("args,needle,forbidden", [
    # --head-dim 0 was accepted whenever rope was not among the schemes.
    (["compare", "--head-dim", "0"], "--head-dim must be a positive integer", ()),
    (["inspect", "--scheme", "alibi", "--head-dim", "-2"], "--head-dim must be a positive integer", ()),
    # An odd --dim for rope blamed --head-dim, which the user had not given.
    (["inspect", "--scheme", "rope", "--dim", "3"], "--dim 3", ("--head-dim 3",)),
    (["order", "--schemes", "rope", "--dim", "5"], "--dim 5", ("--head-dim 5",)),
    (["compare", "--schemes", "rope", "--dim", "2", "--rope-scaling", "ntk", "--rope-factor", "2"], "--dim 2",
     ("--head-dim 2",)),
    # An empty --ids was read as the current directory.
    (["compare", "--ids", ""], "--ids needs a file path", ("directory",)),
    # Draws that overflow the dtype made an inf table: an SVD failure in the scorecard, exit 1.
    (["compare", "--init-std", "1e39"], "--init-std 1e+39 overflows float32", ()),
    (["inspect", "--scheme", "learned", "--dtype", "float16", "--init-std", "1e5"], "overflows float16", ()),
    (["bench", "--init-std", "1e300", "--dim", "8", "--ctx", "8", "--repeats", "1"], "--init-std", ()),
    # A stretched base past the largest float64: OverflowError, exit 1.
    (["inspect", "--scheme", "rope", "--rope-scaling", "ntk", "--rope-factor", "1e300"], "--rope-factor 1e+300", ()),
    (["order", "--schemes", "rope", "--rope-scaling", "dynamic", "--rope-factor", "1e300"], "--rope-factor 1e+300", ()),
])
def test_flag_refusals(args, needle, forbidden):
    refused([*args, *SMALL], needle, forbidden=forbidden)


@pytest.mark.parametrize("args,needle", [
    (["--schemes", "learned,rope", "--dim", "16,3"], "--dim 3: rope"),
    (["--schemes", "learned,alibi", "--dim", "16,12"], "--dim 12: alibi"),
])
def test_sweep_refuses_head_settings_before_any_work(monkeypatch, args, needle):
    # These used to print the first configurations' JSON lines, then fail mid-sweep.
    def no_work(*args, **kwargs):
        raise AssertionError("inspect ran before every value was checked")

    monkeypatch.setattr(posemb_cli.run.analysis, "inspect", no_work)
    refused(["sweep", *args, "--ctx", "32", *SMALL], needle, forbidden=("--head-dim", "--heads"))


@pytest.mark.parametrize("args,needle", [
    (["--schemes", "rope", "--dim", "1", "--ctx", "1", "--seq-len", "1"], "--dim 1: rope"),  # was exit 1
    (["--schemes", "learned,alibi", "--dim", "16,12", "--ctx", "16"], "--dim 12: alibi"),  # was exit 1
])
def test_bench_refuses_head_settings(args, needle):
    refused(["bench", *args, "--repeats", "1", "--warmup", "0", *SMALL], needle)


def _npy(path, array):
    np.save(path, array)
    return str(path)


def _torch(path, state):
    torch.save(state, path)
    return str(path)


CHECKPOINTS = [
    # Garbage that the weights-only unpickler failed on with IndexError: exit 1.
    (lambda d: (d / "junk.pt").write_bytes(b"abc") and str(d / "junk.pt"), "not a readable PyTorch state dict"),
    # Arrays that are not (rows, dim) tables: TypeError, exit 1.
    (lambda d: _npy(d / "vec.npy", np.ones(16, np.float32)), "is not a (rows, dim) table"),
    (lambda d: _npy(d / "cube.npy", np.ones((2, 3, 4), np.float32)), "is not a (rows, dim) table"),
    # Non-finite tables: an SVD failure in the scorecard, exit 1.
    (lambda d: _npy(d / "nan.npy", np.full((16, 4), np.nan, np.float32)), "NaN or infinite values (first in row 0)"),
    (lambda d: _torch(d / "inf.pt", {"wpe.weight": torch.cat([torch.ones(9, 4), torch.full((1, 4), float("inf"))])}),
     "NaN or infinite values (first in row 9)"),
    # Tables too small to have a neighbour: the message blamed --ctx/--dim, never typed.
    (lambda d: _npy(d / "empty.npy", np.ones((0, 4), np.float32)), "at least 2 rows"),
    (lambda d: _npy(d / "one.npy", np.ones((1, 4), np.float32)), "at least 2 rows"),
    (lambda d: _npy(d / "wide0.npy", np.ones((8, 0), np.float32)), "at least 2 rows and 1 feature"),
    # A real but short table with the default --max-offset 8.
    (lambda d: _npy(d / "short.npy", np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)),
     "--max-offset 8 must be below the 5 positions of --checkpoint"),
]


@pytest.mark.parametrize("command", ["compare", "inspect"])
@pytest.mark.parametrize("make,needle", CHECKPOINTS)
def test_checkpoint_refusals(tmp_path, command, make, needle):
    path = make(tmp_path)
    refused([command, "--checkpoint", path, *SMALL], needle, forbidden=("--ctx", "--dim "))
    assert path in runner.invoke(app, [command, "--checkpoint", path]).stderr


def _config(path, **fields):
    base = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2, "max_position_embeddings": 256,
            "vocab_size": 50}  # as --vocab in SMALL: absent, it is LlamaConfig's 32000
    path.write_text(json.dumps({**base, **fields}))
    return str(path)


@pytest.mark.parametrize("fields,needle", [
    ({"head_dim": 7}, "head_dim is 7"),  # blamed partial_rotary_factor, absent from the file
    ({"hidden_size": 30, "num_attention_heads": 2}, "hidden_size / num_attention_heads is 15"),
    ({"max_position_embeddings": 4}, "--max-offset 8 must be below the 4 positions of --config"),  # blamed --ctx
])
def test_config_refusals(tmp_path, fields, needle):
    refused(["inspect", "--config", _config(tmp_path / "config.json", **fields), *SMALL], needle,
            forbidden=("partial_rotary_factor", "--ctx"))


def test_ids_with_a_byte_order_mark_are_read(tmp_path):
    path = tmp_path / "ids.json"
    path.write_bytes(b"\xef\xbb\xbf[[1, 2, 3]]")  # was refused as "neither JSON nor .npy"
    doc, = ok_json(["inspect", "--ids", str(path), "--ctx", "4", "--max-offset", "1", *SMALL])
    assert doc["shapes"]["ids"] == [1, 3]


@pytest.mark.parametrize("scheme,dim", [(s, d) for s in ALL for d in (1, 3) if s != "rope"] + [("rope", 2)])
def test_tiny_and_odd_dims(scheme, dim):
    heads = ["--heads", "1"] if scheme == "alibi" else []  # read by alibi only
    doc, = ok_json(["inspect", "--scheme", scheme, "--dim", str(dim), *heads, "--ctx", "8", "-k", "2", *SMALL])
    assert doc["shapes"]["output"] == [2, 8, dim]
    order, = ok_json(["order", "--schemes", scheme, "--dim", str(dim), *heads, "--ctx", "8", "-k", "2", *SMALL])
    assert order["results"][0]["scheme"] == scheme


@pytest.mark.parametrize("command", ["compare", "order"])
def test_smallest_context(command):
    doc, = ok_json([command, "--schemes", ",".join(ALL), "--dim", "8", "--heads", "2", "--ctx", "2",
                    "--max-offset", "1", "--seq-len", "1", "--batch", "1", "--vocab", "5", "--device", "cpu"])
    assert doc["config"]["ctx"] == 2 and doc["config"]["seq_len"] == 1


def test_smallest_bench_and_sweep():
    bench, = ok_json(["bench", "--schemes", ",".join(ALL), "--dim", "8", "--ctx", "1", "--seq-len", "1",
                      "--batch", "1", "--vocab", "5", "--repeats", "1", "--warmup", "0", "--device", "cpu"])
    assert [row["scheme"] for row in bench["results"]] == list(ALL)
    lines = ok_json(["sweep", "--schemes", "learned,sinusoidal,none", "--dim", "1,3", "--ctx", "2",
                     "--max-offset", "1", "--seq-len", "1", "--batch", "1", "--vocab", "5", "--device", "cpu"])
    assert [(d["config"]["dim"], d["scheme"]) for d in lines] == [
        (d, s) for d in (1, 3) for s in ("learned", "sinusoidal", "none")]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_every_dtype_for_every_scheme_and_command(dtype):
    schemes = ",".join(ALL)
    flags = ["--dtype", dtype, "--dim", "16", "--heads", "4", "--ctx", "32", *SMALL]
    compare, = ok_json(["compare", "--schemes", schemes, *flags])
    assert [entry["scheme"] for entry in compare["schemes"]] == list(ALL)
    for entry in compare["schemes"]:
        if entry["scheme"] == "alibi":  # every position's bias points the same way: the cosines are left out
            assert entry["neighbour_similarity"] is None
        elif entry["scheme"] != "none":  # none has no signal: its cosines are null by design
            assert all(row["mean"] is not None for row in entry["neighbour_similarity"]), entry["scheme"]
    order, = ok_json(["order", "--schemes", schemes, *flags])
    assert [row["scheme"] for row in order["results"]] == list(ALL)
    bench, = ok_json(["bench", "--schemes", schemes, "--dtype", dtype, "--dim", "16", "--ctx", "32", "--repeats",
                      "1", "--warmup", "0", *SMALL])
    assert all(row["median_s"] > 0 for row in bench["results"])


@pytest.mark.parametrize("command", ["compare", "inspect"])
def test_plot_onto_a_directory_is_refused_before_any_work(tmp_path, monkeypatch, command):
    (tmp_path / "figure.png").mkdir()  # was only refused after every figure had been computed

    def no_work(*args, **kwargs):
        raise AssertionError("the analysis ran before --plot was checked")

    monkeypatch.setattr(posemb_cli.run.analysis, command, no_work)
    refused([command, "--plot", str(tmp_path / "figure.png"), "--dim", "8", "--ctx", "16", *SMALL], "is a directory")
