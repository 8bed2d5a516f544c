"""On a terminal's stderr a progress display appears at once and goes away; stdout gets only the result."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_with_terminal_stderr(*args: str) -> tuple[bytes, bytes, float | None, int]:
    """Run posemb with stderr on a pseudo-terminal and stdout on a pipe; returns both, the first stderr delay."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    start = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "posemb_cli", *args], stdout=subprocess.PIPE,
                               stderr=follower, env=env, cwd=ROOT)
    os.close(follower)
    seen, first = b"", None
    while True:
        ready, _, _ = select.select([leader], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            if first is None:
                first = time.monotonic() - start
            seen += chunk
        elif process.poll() is not None:
            break
    stdout = process.stdout.read()
    code = process.wait()
    os.close(leader)
    return stdout, seen, first, code


def test_progress_names_the_stages_and_ends_on_a_terminal():
    stdout, stderr, first, code = _run_with_terminal_stderr(
        "inspect", "--scheme", "rope", "--dim", "64", "--ctx", "20000", "--json")
    assert code == 0, stderr.decode(errors="replace")
    document = json.loads(stdout)  # stdout holds the result and nothing else
    assert document["schema"] == "posemb.inspect/1"
    text = stderr.decode(errors="replace")
    assert "loading torch" in text or "prepare the batch" in text
    assert "rope: neighbour similarity" in text
    assert "rope: scorecard" in text
    assert first is not None and first < 2.0  # about 0.3 s measured: before torch is imported; slack for load
    assert "\x1b[?25h" in text  # the cursor is given back: the display ended
    assert "Traceback" not in text


def test_nothing_on_stderr_when_it_is_not_a_terminal():
    result = subprocess.run([sys.executable, "-m", "posemb_cli", "compare", "--dim", "16", "--ctx", "64", "--json"],
                            capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, check=False)
    assert result.returncode == 0
    assert result.stderr == b""
    json.loads(result.stdout)
