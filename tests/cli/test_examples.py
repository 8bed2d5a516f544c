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


def _example(name: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True,
                          timeout=300, check=True)
    return done.stdout


def test_examples_are_short():
    for path in EXAMPLES.glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 30, path.name


def test_base_covers_context_per_rope_set(tmp_path):
    import json

    (tmp_path / "config.json").write_text(json.dumps({
        "model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16,
        "num_hidden_layers": 6, "max_position_embeddings": 4096, "sliding_window": 64, "vocab_size": 100,
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                            "full_attention": {"rope_type": "default", "rope_theta": 10000.0}}}))
    theta = [10000.0 ** (-2 * i / 16) for i in range(8)]  # the oracle: the first m with sum cos(m theta) < 0
    import math

    first = next(m for m in range(1, 4096) if sum(math.cos(m * t) for t in theta) < 0)
    lines = _example("base_covers_context.py", str(tmp_path)).splitlines()
    assert lines[0].startswith("full_attention (1 layers): base 10000, distances below 4,096 (the context it runs at)")
    assert f"NOT covered: first negative at {first}," in lines[0]
    assert lines[1].startswith("sliding_attention (5 layers): base 10000, distances below 64 (the sliding window")
    assert lines[1].endswith(": covered" if first > 64 else "covers, as does every grid base above it")


def test_learned_spectrum_reads_a_table(tmp_path):
    from tests.model_zoo import zoo_model

    out = _example("learned_spectrum.py", zoo_model("gpt2"), str(tmp_path / "spectrum.png"))
    assert out.startswith("64 positions, exact") and out.count("  PC") == 8
    assert (tmp_path / "spectrum.png").stat().st_size > 0


def test_head_frequencies_per_layer():
    import json

    from posemb_cli.cli.app import app
    from typer.testing import CliRunner

    from tests.model_zoo import zoo_model

    folder = zoo_model("llama")
    doc = json.loads(CliRunner().invoke(app, ["heads", "--checkpoint", folder, "--json"]).stdout)
    lines = _example("head_frequencies.py", folder).splitlines()
    assert lines[0] == f"shared: {doc['rope_sets'][0]['rotary_pairs']} pairs, critical pair " \
                       f"{doc['rope_sets'][0]['critical_pair']}"
    assert len(lines) == 1 + len(doc["layers"]) + 1 and lines[-1] == str(doc["labels"])
