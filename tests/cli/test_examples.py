"""The examples run against real output."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_decay_summary_consumes_compare_json():
    produced = subprocess.run([sys.executable, "-m", "posemb_cli", "compare", "--dim", "64", "--ctx", "512", "--json"],
                              capture_output=True, text=True, timeout=120, check=True)
    consumed = subprocess.run([sys.executable, str(EXAMPLES / "decay_summary.py")], input=produced.stdout,
                              capture_output=True, text=True, timeout=60, check=True)
    assert "sinusoidal: +0 params" in consumed.stdout
    assert "cos at k=1 is 0.9662" in consumed.stdout
