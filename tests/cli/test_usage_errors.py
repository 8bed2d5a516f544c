"""Type errors echo the value typed; Ctrl-C says so in one line and exits 130."""

from __future__ import annotations

import posemb_cli.run.analysis
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


@pytest.mark.parametrize("args,line", [
    (["compare", "--dim", "abc"], "posemb: error: --dim: 'abc' is not a valid integer"),
    (["inspect", "--dim=abc"], "posemb: error: --dim: 'abc' is not a valid integer"),
    (["inspect", "-d", "7x"], "posemb: error: --dim: '7x' is not a valid integer"),
    (["compare", "--base", "ten"], "posemb: error: --base: 'ten' is not a valid number"),
    (["order", "--seq-len", "1.5"], "posemb: error: --seq-len: '1.5' is not a valid integer"),
])
def test_type_errors_echo_the_value(args, line):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == line + "\n"


def test_a_bad_choice_names_the_flag_the_value_and_the_choices():
    result = runner.invoke(app, ["compare", "--dtype", "float8"])
    assert result.exit_code == 2
    assert result.stderr.startswith("posemb: error: --dtype: 'float8' is not one of")
    assert "'bfloat16'" in result.stderr


def test_ctrl_c_prints_interrupted_and_exits_130(monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(posemb_cli.run.analysis, "compare", interrupted)
    result = runner.invoke(app, ["compare", "--dim", "8", "--ctx", "16", "--device", "cpu"])
    assert result.exit_code == 130
    assert result.stdout == ""
    assert result.stderr.strip() == "posemb: interrupted"
