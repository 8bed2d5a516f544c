"""Every `posemb ...` line of README.md that names no file of the reader's runs as written, after the Quick start.

The lines come from the README itself: the commands of the "which command" table and the lines of its
``bash`` blocks. A line with a placeholder for the reader's own model or file (MODEL, FILE, DIR, L, CMD, a
.gguf or config.json path) is left to the marked examples, which rerun on real files with their setup
(``test_readme_examples.py``).
"""

import os
import re
import shlex

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLACEHOLDERS = re.compile(r"\bMODEL\b|\bFILE\b|\bDIR\b|\bL\b|\bNAME\b|\bCMD\b|\.gguf|config\.json|org/name"
                          r"|ollama:|[<>|]")


def readme_commands() -> list[str]:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    table = [line for line in text.splitlines() if line.startswith("| ") and "`posemb " in line and "](" in line]
    found = [command for line in table for command in re.findall(r"`(posemb [^`]+)`", line)]
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        found += [line for line in block.splitlines() if line.startswith("posemb ")]
    commands = []
    for line in found:
        line = line.split(" > ")[0].strip()
        if PLACEHOLDERS.search(line) or line.endswith("...") or line in commands:
            continue
        commands.append(line)
    return commands


def test_the_readme_has_commands_to_run():
    commands = readme_commands()
    assert "posemb compare" in commands
    assert any(command.startswith("posemb sweep") for command in commands)


@pytest.mark.parametrize("command", readme_commands())
def test_each_readme_command_runs_as_written(command):
    result = CliRunner().invoke(app, shlex.split(command)[1:], env={"COLUMNS": "100"})
    assert result.exit_code == 0, f"{command}: {result.output}"
