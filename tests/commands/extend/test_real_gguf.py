"""`posemb extend` on real quantised GGUF models (SmolLM2-135M Q4_1, Gemma 3 270M Q4_K_M), when present here.

Skipped when the files are absent (``POSEMB_REAL_MODELS`` names their folder). SmolLM2 was trained at 8,192
positions with base 100,000 and 64 rotary features: at 32,768, none extrapolates exactly the pairs at or past
its critical pair, linear extrapolates none and compresses all 32 by 4, and YaRN leaves unchanged exactly the
pairs whose wavelength is under 8,192 / 32 (a loop over the frequencies written here). Gemma 3's sliding set
(window 512) needs no extension. Every promise is brute-forced, and the heads' shares are sums of
`posemb heads --json` pair shares.
"""

from __future__ import annotations

import json
import math

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.cli.test_json_schemas import check
from tests.extend_promises import check_extend_promises, pair_sums
from tests.sources.gguf.test_real_gguf import GEMMA, SMOL, _file

runner = CliRunner()


def _json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def smollm2() -> tuple[dict, dict]:
    path = _file(SMOL)
    return _json("extend", path, "--to", "32768"), _json("heads", "--checkpoint", path)


def test_smollm2_at_32768(smollm2):
    doc, heads = smollm2
    check("extend", doc)
    check_extend_promises(doc)
    one, = doc["sets"]
    assert (one["trained_length"], one["base"], one["rotary_pairs"]) == (8192, 100_000.0, 32)
    assert one["trained_from"] == "llama.context_length 8,192" and one["attends_to"]["distance"] == 32768
    critical = one["critical_pair"]
    assert critical == 20 == heads["critical_pair"]
    theta = [100_000.0 ** (-2 * i / 64) for i in range(32)]
    assert critical == next(i for i, t in enumerate(theta) if 8192 * t < 2 * math.pi)
    by = {c["scaling"]: c for c in one["candidates"]}
    assert [p["class"] for p in by["none"]["pairs"]] == ["unchanged"] * 20 + ["extrapolated"] * 12
    assert [p["class"] for p in by["linear"]["pairs"]] == ["compressed"] * 32
    assert all(p["compression"] == pytest.approx(4.0, rel=1e-12) for p in by["linear"]["pairs"])
    short = [2 * math.pi / t < 8192 / 32 for t in theta]  # YaRN's beta_fast = 32 turns within the trained length
    assert [p["class"] == "unchanged" for p in by["yarn"]["pairs"]] == short
    assert all(p["class"] == "compressed" for p, s in zip(by["yarn"]["pairs"], short, strict=True) if not s)
    assert doc["weighted_by"] == "heads" and pair_sums(heads, doc) == 30 * 9 * len(doc["scalings"])
    assert doc["recommendation"]["llama_cpp"] == ["--rope-scaling", "yarn", "--rope-scale", "4", "--yarn-orig-ctx",
                                                  "8192", "-c", "32768"]


def test_gemma3_sliding_set_needs_no_extension():
    doc = _json("extend", _file(GEMMA), "--to", "65536")
    check("extend", doc)
    check_extend_promises(doc)
    by = {one["name"]: one for one in doc["sets"]}
    sliding, full = by["sliding_attention"], by["full_attention"]
    assert not sliding["needs_extension"] and sliding["candidates"] == []
    assert sliding["attends_to"]["distance"] == 512 and sliding["attends_to"]["windowed"]
    assert sliding["trained_length"] == 32768 and "needs no extension" in sliding["why"]
    assert full["needs_extension"] and full["layers"] == [5, 11, 17]
