"""Sizes in memory refusals: human units, and a cap instead of absurd figures."""

from __future__ import annotations

import pytest
from posemb_cli.run.memory import format_bytes


@pytest.mark.parametrize("count,text", [
    (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"), (2 * 1024**3, "2.0 GiB"),
    (128 * 1024**2 * 4 * 4096 // 1024, "2.0 GiB"), (5 * 1024**5, "5.0 PiB"), (1024**6, "1.0 EiB"),
])
def test_human_units(count, text):
    assert format_bytes(count) == text


@pytest.mark.parametrize("count", [1024**6 + 1, 2214592512.0 * 1024**5, 1e300])
def test_capped_above_one_exbibyte(count):
    assert format_bytes(count) == "more than 1 EiB"
