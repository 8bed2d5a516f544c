"""The Python API against the CLI: the same arguments give the same JSON bytes, the same terminal tables and the
same refusals; nothing prints; importing it costs no torch."""

from __future__ import annotations

import io
import subprocess
import sys

import posemb_cli
import pytest
from posemb_cli.cli.app import app
from posemb_cli.reports import InspectReport
from posemb_cli.run.report import to_json
from rich.console import Console
from typer.testing import CliRunner

from tests.model_zoo import zoo_model

runner = CliRunner()
SMALL = {"dim": 32, "ctx": 128, "seq_len": 16, "max_offset": 4, "device": "cpu"}
SMALL_ARGS = ["--dim", "32", "--ctx", "128", "--seq-len", "16", "--max-offset", "4", "--device", "cpu"]


def _cli(*args: str, columns: int = 100) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": str(columns), "NO_COLOR": "1"})
    assert result.exit_code in (0, 3), result.output
    return result.stdout


def _shown(report, columns: int = 100) -> str:
    console = Console(file=io.StringIO(), width=columns, color_system=None, no_color=True)
    console.print(report)
    return console.file.getvalue()


CASES = [  # (API call, the CLI's arguments)
    (lambda: posemb_cli.inspect(scheme="rope", no_plot=True, **SMALL), ["inspect", "--scheme", "rope", *SMALL_ARGS]),
    (lambda: posemb_cli.inspect(scheme="learned", no_plot=True, **SMALL),
     ["inspect", "--scheme", "learned", *SMALL_ARGS]),
    (lambda: posemb_cli.compare(schemes=["learned", "sinusoidal", "alibi"], heads=4, **SMALL),
     ["compare", "--schemes", "learned,sinusoidal,alibi", "--heads", "4", *SMALL_ARGS]),
    (lambda: posemb_cli.order(seq_len=8, device="cpu"), ["order", "--seq-len", "8", "--device", "cpu"]),
    (lambda: posemb_cli.padding(seq_len=8, pad=4, device="cpu"),
     ["padding", "--seq-len", "8", "--pad", "4", "--device", "cpu"]),
    (lambda: posemb_cli.precision(dim=32, ctx=1024), ["precision", "--dim", "32", "--ctx", "1024"]),
    (lambda: posemb_cli.inspect_model(zoo_model("llama"), max_offset=4, device="cpu", no_plot=True),
     ["inspect", zoo_model("llama"), "--max-offset", "4", "--device", "cpu"]),
    (lambda: posemb_cli.inspect_model(zoo_model("gpt2"), max_offset=4, device="cpu", no_plot=True),
     ["inspect", zoo_model("gpt2"), "--max-offset", "4", "--device", "cpu"]),
    (lambda: posemb_cli.padding(model_config=zoo_model("llama"), seq_len=8, device="cpu"),
     ["padding", "--config", zoo_model("llama"), "--seq-len", "8", "--device", "cpu"]),
    (lambda: posemb_cli.padding(model=zoo_model("llama"), seq_len=8, device="cpu"),
     ["padding", zoo_model("llama"), "--seq-len", "8", "--device", "cpu"]),
    (lambda: posemb_cli.precision(model=zoo_model("llama")), ["precision", zoo_model("llama")]),
    (lambda: posemb_cli.compare(models=[zoo_model("llama"), zoo_model("gpt2")], max_offset=4, device="cpu"),
     ["compare", zoo_model("llama"), zoo_model("gpt2"), "--max-offset", "4", "--device", "cpu"]),
    (lambda: posemb_cli.doctor(zoo_model("llama")), ["doctor", zoo_model("llama")]),
    (lambda: posemb_cli.heads(zoo_model("llama"), distances=[0, 1, 4], top=2),
     ["heads", zoo_model("llama"), "--distances", "0,1,4", "--top", "2"]),
]
IDS = ["inspect-rope", "inspect-learned", "compare", "order", "padding", "precision", "model-rope", "model-table",
       "padding-config", "padding-model", "precision-model", "compare-models", "doctor", "heads"]


@pytest.mark.parametrize("call, args", CASES, ids=IDS)
def test_the_report_is_the_commands_json_and_tables(call, args, capsys):
    report = call()
    assert capsys.readouterr().out == ""  # the API prints nothing
    assert to_json(report.to_dict()) + "\n" == _cli(*args, "--json")
    assert report.to_json() == to_json(report.to_dict())
    terminal = [*args, "--no-plot"] if args[0] == "inspect" else args  # heads draws its pictures on both sides
    assert _shown(report) == _cli(*terminal)


@pytest.mark.parametrize("call, args", [
    (lambda: posemb_cli.inspect(dim=0), ["inspect", "--dim", "0"]),
    (lambda: posemb_cli.inspect(scheme="rope", heads=4), ["inspect", "--scheme", "rope", "--heads", "4"]),
    (lambda: posemb_cli.padding(model_config=zoo_model("llama"), schemes="rope"),
     ["padding", "--config", zoo_model("llama"), "--schemes", "rope"]),
    (lambda: posemb_cli.precision(scheme="alibi"), ["precision", "--scheme", "alibi"]),
    (lambda: posemb_cli.inspect_model("/no/such/config.json"), ["inspect", "/no/such/config.json"]),
], ids=["bad-dim", "unread-flag", "schemes-with-model", "precision-scheme", "missing-file"])
def test_bad_arguments_raise_the_clis_line(call, args):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    with pytest.raises(posemb_cli.PosembError) as raised:
        call()
    assert f"posemb: error: {raised.value}\n" == result.stderr


# Bad input given to the API and to the CLI (as the text a user would type): the same refusal line.
REFUSALS = [
    (lambda: posemb_cli.inspect(scheme="rop"), ["inspect", "--scheme", "rop"]),
    (lambda: posemb_cli.inspect(dim="abc"), ["inspect", "--dim", "abc"]),
    (lambda: posemb_cli.inspect(seq_len="x"), ["inspect", "--seq-len", "x"]),
    (lambda: posemb_cli.inspect(dtype="float8"), ["inspect", "--dtype", "float8"]),
    (lambda: posemb_cli.inspect(scheme="rope", rope_layout="diag"),
     ["inspect", "--scheme", "rope", "--rope-layout", "diag"]),
    (lambda: posemb_cli.inspect(scheme="rope", rope_scaling="yarn"),
     ["inspect", "--scheme", "rope", "--rope-scaling", "yarn"]),
    (lambda: posemb_cli.inspect(device="tpu"), ["inspect", "--device", "tpu"]),
    (lambda: posemb_cli.compare(schemes=["learned", "foo"]), ["compare", "--schemes", "learned,foo"]),
    (lambda: posemb_cli.compare(schemes="rope", rope_scaling="wide"),
     ["compare", "--schemes", "rope", "--rope-scaling", "wide"]),
    (lambda: posemb_cli.order(seq_len=0), ["order", "--seq-len", "0"]),
    (lambda: posemb_cli.padding(pad=0), ["padding", "--pad", "0"]),
    (lambda: posemb_cli.precision(dtypes="float8"), ["precision", "--dtypes", "float8"]),
    (lambda: posemb_cli.precision(rope_scaling="llama3"), ["precision", "--rope-scaling", "llama3"]),
    (lambda: posemb_cli.doctor("/no/such/config.json"), ["doctor", "/no/such/config.json"]),
    (lambda: posemb_cli.heads(zoo_model("llama"), distances="a,b"),
     ["heads", zoo_model("llama"), "--distances", "a,b"]),
    (lambda: posemb_cli.compare(models=[zoo_model("llama")], scalings="yarn"),
     ["compare", zoo_model("llama"), "--scalings", "yarn"]),
]


@pytest.mark.parametrize("call, args", REFUSALS, ids=[" ".join(args[:3]) for _, args in REFUSALS])
def test_every_refusal_is_the_clis_line(call, args):
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and result.stdout == "", result.output
    with pytest.raises(posemb_cli.PosembError) as raised:
        call()
    assert f"posemb: error: {raised.value}\n" == result.stderr


def test_an_unknown_argument_is_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'dimension'"):
        posemb_cli.inspect(dimension=3)  # type: ignore[call-arg]


def test_reports_are_typed_draw_their_pictures_and_plot_a_figure():
    report = posemb_cli.inspect(scheme="learned", **SMALL)
    assert isinstance(report, InspectReport) and isinstance(report, posemb_cli.InspectReport)
    assert "Similarity heatmap" in _shown(report)  # pictures by default, as in a terminal
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    figure = report.plot()
    assert isinstance(figure, Figure) and len(figure.axes) >= 4  # heatmap, colour bar, bands, decay, spectrum


def test_import_stays_light():
    code = ("import sys, posemb_cli; posemb_cli.inspect; posemb_cli.InspectReport; "
            "sys.exit(1 if 'torch' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


@pytest.mark.parametrize("name", ["inspect", "compare", "order", "padding", "precision", "doctor", "heads"])
def test_every_keyword_is_a_flag_of_the_command(name):
    """The TypedDicts that type-check API calls name exactly the command's flags (doctor and heads take their MODEL
    as their first argument; doctor's --config and --checkpoint may be given instead)."""
    import inspect as signatures
    from importlib import import_module

    from posemb_cli import api_flags

    typed = getattr(api_flags, f"{name.capitalize()}Flags")
    keys = typed.__required_keys__ | typed.__optional_keys__
    parameters = set(signatures.signature(getattr(import_module(f"posemb_cli.cli.commands.{name}"), name)).parameters)
    path = {"checkpoint", "model"} if name == "heads" else {"model"} if name == "doctor" else set()
    assert keys == parameters - {"context", "json", "debug", "output_format"} - path
