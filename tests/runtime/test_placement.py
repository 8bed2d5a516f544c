"""Where the weights go, from what each device has free (the devices stood in for: no GPU is needed here).

One device when the weights and the larger of loading and the window fit it; over every GPU by
accelerate (``device_map="auto"``, each GPU keeping room for the window) only under ``--device auto``
with several GPUs; refused, naming the estimate and each device, otherwise.
"""

from __future__ import annotations

import pytest
from posemb_cli.errors import PosembError
from posemb_cli.runtime.transformers_backend import placement

GIB = 1 << 30


@pytest.fixture()
def two_gpus(monkeypatch):
    free = {"cuda:0": 10 * GIB, "cuda:1": 6 * GIB, "cpu": 64 * GIB}
    monkeypatch.setattr(placement, "free_bytes", lambda device: free[device])
    monkeypatch.setattr(placement, "_gpus", lambda spec: ["cpu"] if spec == "cpu" else
                        [spec] if spec.startswith("cuda:") else ["cuda:0", "cuda:1"])
    return free


def test_one_device_when_it_fits(two_gpus):
    assert placement.place("auto", 6 * GIB, 1 * GIB, 3 * GIB, what="m").device_map == {"": "cuda:0"}
    assert placement.place("cuda:1", 3 * GIB, 1 * GIB, 2 * GIB, what="m").device_map == {"": "cuda:1"}


def test_spread_over_every_gpu_by_accelerate_under_auto(two_gpus):
    where = placement.place("auto", 12 * GIB, 1 * GIB, 2 * GIB, what="m")
    assert where.device_map == "auto" and where.max_memory == {0: 8 * GIB, 1: 4 * GIB}
    assert "accelerate" in where.description


def test_refused_naming_the_estimate_and_what_each_device_has(two_gpus):
    with pytest.raises(PosembError) as caught:
        placement.place("cuda:1", 5 * GIB, 1 * GIB, 2 * GIB, what="m at 100 tokens")
    assert str(caught.value).startswith("m at 100 tokens: measuring needs about 7.0 GiB (weights 5.0 GiB, then "
                                        "2.0 GiB to load them or run the window) but cuda:1 has 6.0 GiB free")
    with pytest.raises(PosembError, match="cuda:0 has 10.0 GiB free, cuda:1 has 6.0 GiB free"):
        placement.place("auto", 13 * GIB, 1 * GIB, 2 * GIB, what="m")
