"""The shape every refusal must have: exit 2, one line on stderr naming the problem, nothing on stdout."""

from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


def check_refused(args, needle, *, forbidden=()):
    """Run ``posemb ARGS`` and assert a clean refusal whose line contains ``needle``.

    ``forbidden`` lists flags the user did not type, which the message must not blame.
    """
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert needle in lines[0], lines[0]
    assert "Traceback" not in result.output
    for flag in forbidden:
        assert flag not in lines[0], lines[0]
