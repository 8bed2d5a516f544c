"""The promise, on generated input: every command, every numeric flag, every kind of input file.

For each generated command line: exit 0 or 2 (never 1: no input is an
internal failure); on 2, exactly one stderr line that names a flag or the
file, and nothing on stdout (also under --json); no traceback anywhere; on 0
under --json, stdout is JSON lines. Runs are derandomized (the same cases on
every run) and small, so the suite takes about a minute on two cores;
POSEMB_PROMISE_EXAMPLES=N runs N cases per test, POSEMB_PROMISE_RANDOM=1 draws new ones (a fuzzing run).
"""

import collections
import itertools
import json
import os
import re
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.promise_strategies import (
    SMALL,
    checkpoint_files,
    command_lines,
    config_files,
    ids_files,
)

runner = CliRunner()
_FLAG = re.compile(r"--[a-z][a-z-]+")
_DIR = tempfile.TemporaryDirectory(prefix="posemb-promise-")
_NAMES = itertools.count()
# Every refusal reached, by kind: what it names (a flag, or the kind of file) and the words that follow.
REFUSALS: collections.Counter = collections.Counter()
CASES = collections.Counter()

PROMISE = settings(max_examples=int(os.environ.get("POSEMB_PROMISE_EXAMPLES", "150")), deadline=None,
                   derandomize=not os.environ.get("POSEMB_PROMISE_RANDOM"), database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _file(suffix: str, data: bytes, *, name: str = "input") -> str:
    folder = os.path.join(_DIR.name, str(next(_NAMES)))
    os.makedirs(folder)
    path = os.path.join(folder, name + suffix)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


def _kind(line: str, path: str | None) -> str:
    """A refusal's kind: the message with the path, numbers and quoted values taken out, first words only."""
    text = line.removeprefix("posemb: error: ")
    if path:
        text = text.replace(path, "FILE")
    text = re.sub(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]|-?\d[\w.+*-]*", "#", text)
    return " ".join(text.split()[:5])


def check_promise(args: list[str], *, path: str | None = None, stdin: bytes | None = None, group: str) -> None:
    """Run ``posemb ARGS`` and assert the promise; record the refusal's kind."""
    result = runner.invoke(app, args, input=stdin)
    CASES[group] += 1
    shown = f"posemb {' '.join(args)!r}\nexit {result.exit_code}\nstderr: {result.stderr!r}"
    assert "Traceback" not in result.output, shown
    assert result.exit_code in (0, 2), shown
    if result.exit_code == 2:
        assert result.stdout == "", shown
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("posemb: error: "), shown
        assert _FLAG.search(lines[0]) or (path is not None and path in lines[0]), shown
        assert len(lines[0]) < 400, shown  # one readable line: a 5000-digit value is cut, not echoed
        REFUSALS[_kind(lines[0], path)] += 1
        return
    assert result.stdout, shown
    if "--json" in args:
        for line in result.stdout.splitlines():
            json.loads(line)


@PROMISE
@given(command_lines())
def test_flags_keep_the_promise(args):
    check_promise(args, group="flags")


@PROMISE
@given(command=st.sampled_from(["compare", "inspect", "order"]), file=ids_files(), json_flag=st.booleans(),
       through_stdin=st.booleans())
def test_ids_files_keep_the_promise(command, file, json_flag, through_stdin):
    suffix, data = file
    if through_stdin:
        args, path, stdin = [command, *SMALL[command], "--ids", "-"], None, data
    else:
        path = _file(suffix, data)
        args, stdin = [command, *SMALL[command], "--ids", path], None
    check_promise([*args, *(["--json"] if json_flag else [])], path=path, stdin=stdin, group="ids files")


@PROMISE
@given(command=st.sampled_from(["compare", "inspect"]), file=checkpoint_files(), json_flag=st.booleans())
def test_checkpoint_files_keep_the_promise(command, file, json_flag):
    suffix, data = file
    path = _file(suffix, data)
    args = [command, "--checkpoint", path, "-k", "2", "--batch", "2", "--device", "cpu"]
    args += ["--no-plot"] if command == "inspect" else []
    check_promise([*args, *(["--json"] if json_flag else [])], path=path, group="checkpoint files")


@PROMISE
@given(data=config_files(), json_flag=st.booleans())
def test_config_files_keep_the_promise(data, json_flag):
    path = _file(".json", data, name="config")
    args = ["inspect", "--config", path, "-k", "2", "--batch", "2", "--device", "cpu", "--no-plot"]
    check_promise([*args, *(["--json"] if json_flag else [])], path=path, group="config files")


def test_refusal_kinds_reached(capsys):
    """Report how many generated cases ran and how many distinct kinds of refusal they reached."""
    if not CASES:
        return  # run alone: nothing to report
    with capsys.disabled():
        print(f"\npromise suite: {sum(CASES.values())} generated cases ({dict(CASES)}); "
              f"{sum(REFUSALS.values())} refusals of {len(REFUSALS)} distinct kinds, naming "
              f"{len({kind.split()[0] for kind in REFUSALS})} distinct flags or files")
    assert len(REFUSALS) >= 20, REFUSALS
