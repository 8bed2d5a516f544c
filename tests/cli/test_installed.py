"""The installed console script and `python -m posemb_cli`, as real processes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.oracles import neighbour_cosines, sinusoidal_table

SCRIPT = Path(sys.executable).with_name("posemb")


def run(*args, **kwargs):
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, **kwargs)


@pytest.mark.skipif(not SCRIPT.exists(), reason="the posemb console script is not installed beside this Python")
def test_console_script_compare_json():
    result = run(str(SCRIPT), "compare", "--dim", "64", "--ctx", "512", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["schema"] == "posemb.compare/1"
    sinusoidal = doc["schemes"][1]
    want = neighbour_cosines(sinusoidal_table(512, 64), 1)[0]["mean"]
    assert sinusoidal["neighbour_similarity"][0]["mean"] == pytest.approx(want, abs=1e-6)


def test_module_entry_point_and_clean_errors():
    result = run(sys.executable, "-m", "posemb_cli", "inspect", "--dim", "0", "--json")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == "posemb: error: --dim must be a positive integer, got 0"
    result = run(sys.executable, "-m", "posemb_cli", "--version")
    assert result.returncode == 0 and result.stdout.startswith("posemb ")


def test_human_output_respects_no_color():
    result = run(sys.executable, "-m", "posemb_cli", "inspect", "--dim", "8", "--ctx", "32")
    assert result.returncode == 0, result.stderr
    assert "\x1b[" not in result.stdout and "Neighbour similarity" in result.stdout
