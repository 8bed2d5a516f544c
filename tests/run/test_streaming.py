"""Analytic schemes are measured from rows generated block by block, never from a whole table.

Notation: L positions, F features of the signal.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.analysis import compare


def test_measures_never_ask_an_analytic_scheme_for_its_table(monkeypatch):
    from posemb_cli.core.schemes.alibi import AlibiPositionalBias
    from posemb_cli.core.schemes.none import NoPositionalEncoding
    from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
    from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding

    def refuse(self):
        raise AssertionError(f"{type(self).__name__}.table() was called")

    for scheme in (SinusoidalPositionalEmbedding, RotaryPositionalEmbedding, AlibiPositionalBias,
                   NoPositionalEncoding):
        monkeypatch.setattr(scheme, "table", refuse)
    config = EmbeddingConfig(dim=16, ctx=300, vocab=50, batch=2, seq_len=8, max_offset=4, device="cpu")
    report = compare(config, ("sinusoidal", "rope", "alibi", "none"))
    assert [result.scheme for result in report.results] == ["sinusoidal", "rope", "alibi", "none"]
    zero = {"rows": 300, "dim": 16, "norm_min": 0.0, "norm_mean": 0.0, "norm_max": 0.0}
    assert [result.table for result in report.results[1:]] == [zero] * 3


def test_attention_schemes_zero_table_norms_match_their_table():
    import numpy as np
    from posemb_cli.core.schemes import build_scheme

    config = EmbeddingConfig(dim=16, ctx=64, vocab=50, batch=2, seq_len=8, max_offset=4, device="cpu")
    report = compare(config, ("rope", "alibi", "none"))
    import torch

    for result in report.results:
        table = build_scheme(result.scheme, config, device=torch.device("cpu"), dtype=torch.float32).table()
        norms = np.linalg.norm(table.double().numpy(), axis=1)  # independent: NumPy over the table itself
        assert result.table == {"rows": table.shape[0], "dim": table.shape[1], "norm_min": float(norms.min()),
                                "norm_mean": float(norms.mean()), "norm_max": float(norms.max())}


_PEAK = textwrap.dedent("""
    import json, resource, sys
    import torch
    from posemb_cli.core.schemes.{module} import {cls}
    from posemb_cli.measures.signal_pass import measure_signal

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    scheme = {cls}({args})
    scheme.signal(0, 1)
    before = peak()
    found = measure_signal(scheme, max_offset=2, pair_budget=1 << 16)
    print(json.dumps({{"before": before, "after": peak(), "width": found.width, "rows": found.rows,
                      "mean": found.neighbours[0]["mean"]}}))
""")


@pytest.mark.parametrize(("module", "cls", "args"), [
    ("rope", "RotaryPositionalEmbedding", "1 << 20, 16, generator=torch.Generator().manual_seed(1)"),
    ("sinusoidal", "SinusoidalPositionalEmbedding", "1 << 20, 128"),
])
def test_a_million_positions_take_a_few_blocks_of_memory(module, cls, args):
    """2**20 positions of 128 features: the whole float32 signal is 512 MiB; the pass stays far below."""
    script = _PEAK.format(module=module, cls=cls, args=args)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True)
    figures = json.loads(done.stdout)
    whole = figures["rows"] * figures["width"] * 4
    assert figures["rows"] == 1 << 20 and figures["width"] == 128
    assert figures["after"] - figures["before"] < whole // 4, figures
    assert 0.0 < figures["mean"] < 1.0
