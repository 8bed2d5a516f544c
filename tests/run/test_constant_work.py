"""Past 1,048,576 positions no work grows with the context, and ``methods`` says how each figure reads the signal.

The work is counted, not timed: the signal rows each scheme is asked for and the distances the context
bound scans, at 4,194,304 positions and at 2**27 (the largest context accepted), with real thresholds.
"""

from __future__ import annotations

import pytest
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.measures import context_bound as bound_scan
from posemb_cli.measures import context_bound_key as context_bound
from posemb_cli.run.analysis import inspect

LONG = (1 << 22, 1 << 27)
SAMPLED_KINDS = {"sampled", "closed form", "proof"}


def _work(monkeypatch, scheme: str, ctx: int) -> tuple[int, int, dict]:
    """(signal rows read, distances scanned, the report's JSON) of one ``inspect`` run."""
    from posemb_cli.core.schemes.alibi import AlibiPositionalBias
    from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
    from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding

    rows, distances = [0], [0]
    for cls in (RotaryPositionalEmbedding, SinusoidalPositionalEmbedding, AlibiPositionalBias):
        def counted(self, start=0, stop=None, _signal=cls.signal):
            found = _signal(self, start, stop)
            rows[0] += found.shape[0]
            return found

        monkeypatch.setattr(cls, "signal", counted)
    scanned = bound_scan.first_negative

    def first_negative(inv_freq, limit):
        distances[0] += limit
        return scanned(inv_freq, limit)

    monkeypatch.setattr(context_bound, "first_negative", first_negative)
    config = EmbeddingConfig(dim=2, ctx=ctx, vocab=16, batch=1, seq_len=4, max_offset=2, device="cpu", heads=2)
    report = inspect(config, scheme).result.to_dict()
    monkeypatch.undo()
    return rows[0], distances[0], report


@pytest.mark.parametrize("scheme", ["rope", "sinusoidal", "alibi"])
def test_the_same_work_at_four_million_positions_and_at_two_to_the_27(monkeypatch, scheme):
    (rows, distances, first), (rows_long, distances_long, last) = (_work(monkeypatch, scheme, ctx) for ctx in LONG)
    assert rows == rows_long and distances == distances_long
    assert rows < 2 * (1 << 20)  # the sample, a few determinism blocks and windows: not the context
    for found in (first, last):
        assert set(found["methods"].values()) <= SAMPLED_KINDS, found["methods"]
        assert found["coverage"]["positions_measured"] == 1 << 20


def test_methods_name_every_figure_and_say_every_position_below_the_sample():
    config = EmbeddingConfig(dim=16, ctx=256, vocab=16, batch=1, seq_len=4, max_offset=2, device="cpu")
    found = inspect(config, "rope").result.to_dict()
    assert found["methods"] == {
        "neighbour_similarity": "every position", "table": "closed form", "relative_deviation": "sampled",
        "scorecard.uniqueness": "every position", "scorecard.boundedness": "every position",
        "scorecard.relative": "sampled", "scorecard.extrapolation": "sampled",
        "scorecard.determinism": "every position", "bands": "closed form", "long_term_decay": "closed form",
        "full_turn_pairs": "closed form", "context_bound": "scan"}
    learned = inspect(config, "learned").result.to_dict()["methods"]
    assert learned["table"] == learned["neighbour_similarity"] == learned["spectrum"] == "every position"
    assert learned["scorecard.extrapolation"] == "closed form"  # 2L refused: no row past L exists
    assert "long_term_decay" not in learned and "context_bound" not in learned
