"""T5's bucket of a signed distance, checked against transformers' own ``T5Attention._relative_position_bucket``."""

import pytest
import torch
from posemb_cli.core.schemes.relative_bias import RelativeAttentionBias, relative_position_bucket
from transformers.models.t5.modeling_t5 import T5Attention


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (8, 20), (16, 9), (6, 4)])
def test_buckets_match_transformers(bidirectional, num_buckets, max_distance):
    distances = torch.arange(-3 * max_distance - 5, 3 * max_distance + 6)
    ours = relative_position_bucket(distances, bidirectional=bidirectional, num_buckets=num_buckets,
                                    max_distance=max_distance)
    theirs = T5Attention._relative_position_bucket(distances, bidirectional=bidirectional, num_buckets=num_buckets,
                                                   max_distance=max_distance)
    assert torch.equal(ours, theirs.to(torch.long))
    assert int(ours.min()) >= 0 and int(ours.max()) < num_buckets


def test_bias_and_scores_read_the_table_by_bucket():
    torch.manual_seed(0)
    weight = torch.randn(8, 3)
    scheme = RelativeAttentionBias(weight, 40, 12, bidirectional=True, max_distance=20)
    positions = torch.arange(10)
    bias = scheme.bias(positions, positions)  # (H, T, T)
    for m in range(10):  # a plain loop over (query, key)
        for n in range(10):
            bucket = T5Attention._relative_position_bucket(torch.tensor(n - m), True, 8, 20)
            torch.testing.assert_close(bias[:, m, n], weight[int(bucket)].double(), rtol=0, atol=0)
    q, k = torch.randn(12), torch.randn(12)
    scores = scheme.pair_scores(q, k, torch.tensor([5, 9]), torch.tensor([1, 9]))  # (P, H)
    torch.testing.assert_close(scores, (q.double() @ k.double()) + bias[:, [5, 9], [1, 9]].T)
    assert sum(p.numel() for p in scheme.parameters()) == 24  # buckets x heads
    assert torch.equal(scheme.table(), torch.zeros(40, 12))
    torch.testing.assert_close(scheme.signal(0, 10), bias[:, :, 0].T.float())  # query p against key 0
