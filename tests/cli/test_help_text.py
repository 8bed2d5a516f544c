"""What a newcomer reads first: `posemb --help` names every command in one whole line at 80 columns,
`posemb schema --help` lists every document, and `posemb padding` reads at 80 columns, a row per line."""

from __future__ import annotations

import pytest
import typer
from posemb_cli.cli.app import SHORT_HELP, app
from posemb_cli.schemas import SCHEMA_NAMES
from typer.testing import CliRunner

runner = CliRunner()
ENV = {"COLUMNS": "80", "NO_COLOR": "1"}


def test_every_command_is_one_whole_line_at_80_columns():
    result = runner.invoke(app, ["--help"], env=ENV)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    commands = list(typer.main.get_command(app).list_commands(None))  # the commands, as the help lists them
    assert sorted(commands) == sorted(SHORT_HELP)
    for name in commands:
        (line,) = [line for line in lines if line.split()[:1] == [name]]
        assert line.split(None, 1)[1] == SHORT_HELP[name], line  # whole, nothing cut
        assert len(line) <= 80 and "..." not in line


@pytest.mark.parametrize("name", sorted(SHORT_HELP))
def test_each_line_fits_beside_the_longest_name_in_a_rich_panel(name):
    """Rich's panel at a terminal: a border and padding each side, the name column, two spaces."""
    assert len(SHORT_HELP[name]) <= 80 - 4 - max(map(len, SHORT_HELP)) - 2


def test_schema_help_lists_every_document():
    result = runner.invoke(app, ["schema", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    description = result.stdout.split("Arguments:")[0]
    listed = " ".join(description.split())
    assert f"{', '.join(SCHEMA_NAMES[:-1])} or {SCHEMA_NAMES[-1]}." in listed


def test_padding_reads_at_80_columns_a_row_per_line():
    result = runner.invoke(app, ["padding", "--device", "cpu", "--seq-len", "8"], env=ENV)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    rows = [line for line in lines if line.startswith("│")]
    assert len(rows) == 10  # five schemes, two kinds of position ids, one line each
    assert max(map(len, lines)) <= 80
    # each row's why is a letter told once under the table
    letters = {line.replace("│", " ").split()[-1] for line in rows}
    for letter in letters:
        (told,) = [line for line in lines if line.startswith(f"{letter}: ")]
        assert len(told.split(": ", 1)[1]) > 10
    wide = runner.invoke(app, ["padding", "--device", "cpu", "--seq-len", "8"], env={**ENV, "COLUMNS": "160"})
    assert "scores depend on m−n only: the shift by 4 cancels" in wide.stdout  # beside its rows where it fits


@pytest.mark.parametrize("command", ["compare", "inspect", "order", "bench", "sweep", "schema", "precision",
                                     "padding", "doctor", "heads", "extend"])
def test_every_help_line_fits_80_columns(command):
    """The examples too: a long one continues on the next line with a shell backslash."""
    from posemb_cli.cli.app import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    too_long = [line for line in result.stdout.splitlines() if len(line) > 80]
    assert not too_long, too_long
