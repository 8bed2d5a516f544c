"""`posemb_cli.extend()` against `posemb extend`: the same JSON bytes, the same terminal output, the same refusal
lines; its keywords are the command's flags; nothing prints."""

from __future__ import annotations

import inspect

import posemb_cli
import pytest
from posemb_cli.cli.app import app
from posemb_cli.run.report import to_json
from typer.testing import CliRunner

from tests.model_zoo import zoo_model
from tests.test_api import _cli, _shown

runner = CliRunner()


@pytest.mark.parametrize(("kwargs", "args"), [
    ({}, []),
    ({"scalings": ["yarn", "linear"], "factor": 2.0, "top": 1}, ["--scalings", "yarn,linear", "--factor", "2",
                                                                 "--top", "1"]),
    ({"no_plot": True}, ["--no-plot"]),
], ids=["default", "flags", "no-plot"])
def test_the_report_is_the_commands_json_and_tables(kwargs, args, capsys):
    model = zoo_model("llama")
    report = posemb_cli.extend(model, to=512, **kwargs)
    assert capsys.readouterr().out == ""
    assert isinstance(report, posemb_cli.ExtendReport)
    assert to_json(report.to_dict()) + "\n" == _cli("extend", model, "--to", "512", *args, "--json")
    assert report.to_json() == to_json(report.to_dict())
    assert _shown(report) == _cli("extend", model, "--to", "512", *args)


@pytest.mark.parametrize(("kwargs", "args"), [
    ({"to": 64}, ["--to", "64"]),
    ({"to": 512, "scalings": "longrope"}, ["--to", "512", "--scalings", "longrope"]),
    ({"to": 512, "factor": 0.5}, ["--to", "512", "--factor", "0.5"]),
], ids=["within", "no-factors", "factor"])
def test_bad_arguments_raise_the_clis_line(kwargs, args):
    model = zoo_model("llama")
    result = runner.invoke(app, ["extend", model, *args])
    assert result.exit_code == 2
    with pytest.raises(posemb_cli.PosembError) as raised:
        posemb_cli.extend(model, **kwargs)
    assert f"posemb: error: {raised.value}\n" == result.stderr


def test_every_keyword_is_a_flag_of_the_command():
    from posemb_cli import api_flags
    from posemb_cli.cli.commands.extend import extend

    typed = api_flags.ExtendFlags
    keys = typed.__required_keys__ | typed.__optional_keys__
    assert keys == set(inspect.signature(extend).parameters) - {"context", "json", "debug", "model", "to"}


def test_the_report_plots_a_figure():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    figure = posemb_cli.extend(zoo_model("llama"), to=512).plot()
    assert isinstance(figure, Figure) and len(figure.axes) == 2
