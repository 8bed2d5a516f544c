"""A flag that none of the chosen schemes reads is refused, naming the flag and the schemes that read it."""

from __future__ import annotations

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
TINY = ["--dim", "16", "--ctx", "32", "--vocab", "40", "-b", "2", "-t", "8", "--device", "cpu"]


@pytest.mark.parametrize("args,flag,reader", [
    (["inspect", "--rope-scaling", "yarn", "--rope-factor", "4"], "--rope-scaling", "rope"),
    (["inspect", "--scheme", "learned", "--base", "500"], "--base", "sinusoidal and rope"),
    (["compare", "--schemes", "learned,sinusoidal", "--heads", "4"], "--heads", "alibi"),
    (["order", "--schemes", "none,learned", "--head-dim", "8"], "--head-dim", "rope"),
    (["padding", "--schemes", "learned", "--rope-layout", "half"], "--rope-layout", "rope"),
    (["inspect", "--scheme", "learned", "--full"], "--full", "sinusoidal, rope, alibi, none"),
    (["compare", "--schemes", "learned", "--full"], "--full", "sinusoidal, rope, alibi, none"),
])
@pytest.mark.parametrize("as_json", [False, True])
def test_unread_flag_is_refused(args, flag, reader, as_json):
    result = runner.invoke(app, [*args, *TINY, *(["--json"] if as_json else [])])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert f"{flag} is read only by {reader}" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_value_is_refused_as_a_bad_value_first():
    result = runner.invoke(app, ["inspect", "--scheme", "learned", "--heads", "0", *TINY])
    assert result.exit_code == 2
    assert "--heads" in result.stderr and "read only by" not in result.stderr


def test_a_flag_read_by_one_chosen_scheme_is_accepted():
    result = runner.invoke(app, ["compare", "--schemes", "learned,alibi", "--heads", "4", *TINY, "--json"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("flag", [["--base", "500"], ["--full"], ["--head-dim", "8"]])
def test_a_stored_tables_checkpoint_reads_no_formula_flag(flag):
    """A learned table from a checkpoint is its own scheme: the default --scheme does not let formula flags in."""
    from tests.model_zoo import zoo_model

    result = runner.invoke(app, ["inspect", "--checkpoint", zoo_model("gpt2"), *flag, "--json"])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert f"{flag[0]} is read only by" in result.stderr and "leave " + flag[0] + " out" in result.stderr
