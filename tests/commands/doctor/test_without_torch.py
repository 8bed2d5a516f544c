"""`posemb doctor` on a config.json or a GGUF file imports no torch, in every output format, and its precision
figure is still torch's.

Each import check is a fresh interpreter (this test process has torch loaded already) that
reports ``sys.modules`` after the CLI has answered (``tests/cli/test_startup.py``'s probe).
The collapse doctor prints is checked against ``measures.precision`` run with torch.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from posemb_cli.measures.precision import measure_precision

from tests.cli.test_startup import probe
from tests.sources.published_panel import published

REAL = os.environ.get("POSEMB_REAL_MODELS", os.path.expanduser("~/.cache/posemb-real-models"))
LLAMA_31 = published("llama-3.1-8b.json")  # the published Llama-3.1-8B config.json, bfloat16


def _config(tmp_path, **changes) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA_31, **changes}, indent=2))
    return str(path)


@pytest.mark.parametrize("output", [[], ["--json"], ["--format", "github"], ["--format", "sarif"]])
def test_doctor_on_a_bfloat16_config_imports_no_torch(tmp_path, output):
    report = probe(["doctor", "--config", _config(tmp_path), *output])
    assert report["code"] == 0, report
    assert "low-precision-positions" in report["shown"]  # the rule that used to need torch did run
    assert "torch" not in report["heavy"], f"posemb doctor {' '.join(output)} imported torch"


def test_doctor_on_a_gguf_file_imports_no_torch(tmp_path):
    pytest.importorskip("gguf")
    from tests.gguf_files import write_gguf

    path = write_gguf(tmp_path / "llama.gguf", "llama", {
        "context_length": 4096, "embedding_length": 64, "feed_forward_length": 64, "attention.head_count": 4,
        "attention.head_count_kv": 1, "block_count": 2, "rope.freq_base": 1e4,
        "attention.layer_norm_rms_epsilon": 1e-6}, {"token_embd.weight": (np.zeros((100, 64), np.float32), None)},
        tokens=100)
    report = probe(["doctor", "--config", path, "--format", "github"])
    assert report["code"] == 0, report
    assert "torch" not in report["heavy"]


@pytest.mark.parametrize("name", ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"])
def test_doctor_on_the_real_gguf_files_imports_no_torch(name):
    path = os.path.join(REAL, name)
    if not os.path.isfile(path):
        pytest.skip(f"{name} is not on this machine")
    report = probe(["doctor", "--config", path, "--json"])
    assert report["code"] in (0, 3), report
    assert "torch" not in report["heavy"]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("context", [131072, 4096, 2049, 300, 257, 256])
def test_the_collapse_doctor_prints_is_torchs(tmp_path, dtype, context):
    from posemb_cli.cli.app import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["doctor", "--config", _config(tmp_path, torch_dtype=dtype, rope_scaling=None,
                                                                    max_position_embeddings=context), "--json"])
    found = {finding["id"]: finding for finding in json.loads(result.stdout)["findings"]}
    frequencies = 1.0 / 500000.0 ** (np.arange(0, 128, 2, dtype=np.float64) / 128)
    collapse = measure_precision(frequencies, min(context, 4096), dtype, "native").first_collapse
    if collapse is None:
        assert "low-precision-positions" not in found
    else:
        assert f"position {collapse} and {collapse + 1} are the same" in found["low-precision-positions"]["message"]
