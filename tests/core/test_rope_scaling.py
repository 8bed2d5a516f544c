"""rope_frequencies against loop oracles of each published scaling."""

import math

import numpy as np
import pytest
from posemb_cli.core.schemes.rope_scaling import RopeScaling, rope_frequencies, yarn_attention_factor

from tests.position_oracles import (
    dynamic_inv_freq,
    linear_inv_freq,
    llama3_inv_freq,
    ntk_inv_freq,
    plain_inv_freq,
    yarn_inv_freq,
)


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=0)


@pytest.mark.parametrize("head_dim,base", [(64, 10000.0), (128, 500000.0), (6, 100.0)])
def test_none_is_the_roformer_frequencies(head_dim, base):
    unscaled, scaled, attention = rope_frequencies(head_dim, base, RopeScaling())
    close(unscaled, plain_inv_freq(head_dim, base))
    close(scaled, unscaled)
    assert attention == 1.0 and unscaled.dtype == np.float64 and unscaled.shape == (head_dim // 2,)


def test_linear_divides_every_frequency():
    unscaled, scaled, attention = rope_frequencies(64, 10000.0, RopeScaling("linear", factor=4.0))
    close(unscaled, plain_inv_freq(64, 10000.0))
    close(scaled, linear_inv_freq(64, 10000.0, 4.0))
    assert attention == 1.0


def test_ntk_raises_the_base():
    _, scaled, _ = rope_frequencies(64, 10000.0, RopeScaling("ntk", factor=8.0))
    close(scaled, ntk_inv_freq(64, 10000.0, 8.0))
    assert scaled[0] == 1.0 and scaled[-1] < plain_inv_freq(64, 10000.0)[-1] / 4  # lowest stretched most


@pytest.mark.parametrize("seq_len", [None, 100, 256, 1000, 4096])
def test_dynamic_follows_the_current_length(seq_len):
    scaling = RopeScaling("dynamic", factor=4.0, original_ctx=256)
    _, scaled, _ = rope_frequencies(32, 10000.0, scaling, seq_len=seq_len)
    close(scaled, dynamic_inv_freq(32, 10000.0, 4.0, 256, seq_len or 0))
    if seq_len is None or seq_len <= 256:
        close(scaled, plain_inv_freq(32, 10000.0))  # unscaled within the training length


@pytest.mark.parametrize("factor,original,beta_fast,beta_slow", [(4.0, 128, 32.0, 1.0), (16.0, 4096, 32.0, 1.0),
                                                                  (2.0, 512, 16.0, 2.0)])
def test_yarn_blends_with_a_ramp_between_correction_dims(factor, original, beta_fast, beta_slow):
    scaling = RopeScaling("yarn", factor=factor, original_ctx=original, beta_fast=beta_fast, beta_slow=beta_slow)
    unscaled, scaled, attention = rope_frequencies(64, 10000.0, scaling)
    close(scaled, yarn_inv_freq(64, 10000.0, factor, original, beta_fast, beta_slow))
    assert attention == pytest.approx(0.1 * math.log(factor) + 1.0, rel=1e-15)
    # The paper's intent: pairs turning more than beta_fast times in the original context keep their
    # frequency; pairs turning less than beta_slow times are interpolated (divided by the factor).
    turns = original * unscaled / (2 * math.pi)
    assert np.all(scaled[turns > beta_fast * 1.5] == unscaled[turns > beta_fast * 1.5])
    np.testing.assert_allclose(scaled[turns < beta_slow / 1.5], unscaled[turns < beta_slow / 1.5] / factor, rtol=1e-12)


def test_yarn_attention_factor_given_wins():
    _, _, attention = rope_frequencies(64, 10000.0, RopeScaling("yarn", 4.0, 128, attention_factor=1.5))
    assert attention == 1.5
    assert yarn_attention_factor(1.0) == 1.0


def test_llama3_llama31_8b_settings():
    scaling = RopeScaling("llama3", factor=8.0, original_ctx=8192, low_freq_factor=1.0, high_freq_factor=4.0)
    unscaled, scaled, attention = rope_frequencies(128, 500000.0, scaling)
    close(scaled, llama3_inv_freq(128, 500000.0, 8.0, 8192))
    assert scaled[0] == unscaled[0]  # high frequency kept
    assert scaled[-1] == pytest.approx(unscaled[-1] / 8, rel=1e-15)  # low frequency divided
    assert attention == 1.0
    middle = (2 * math.pi / unscaled > 8192 / 4) & (2 * math.pi / unscaled < 8192)
    assert middle.any() and np.all((scaled[middle] < unscaled[middle]) & (scaled[middle] > unscaled[middle] / 8))


def test_partial_rotary_dim():
    unscaled, scaled, _ = rope_frequencies(64, 10000.0, RopeScaling("linear", 2.0), rotary_dim=16)
    close(unscaled, plain_inv_freq(16, 10000.0))
    close(scaled, linear_inv_freq(16, 10000.0, 2.0))


@pytest.mark.parametrize("scaling,kwargs", [(RopeScaling("yarn", 2.0), {}), (RopeScaling("bogus"), {}),
                                             (RopeScaling("ntk", 2.0), {"rotary_dim": 2})])
def test_bad_settings_raise(scaling, kwargs):
    with pytest.raises(ValueError):
        rope_frequencies(8, 10000.0, scaling, **kwargs)
