"""--ids takes one row of ids as a 1-D .npy array (a batch of one), as its help says; 3-D arrays stay refused."""

import numpy as np
import pytest
from posemb_cli.errors import PosembError
from posemb_cli.sources.batch.ids import read_ids


def test_a_one_dimensional_npy_is_one_row(tmp_path):
    path = tmp_path / "row.npy"
    np.save(path, np.arange(7, dtype=np.int32))
    ids = read_ids(str(path), 100)
    assert ids.shape == (1, 7) and ids.dtype == np.int64 and ids[0].tolist() == list(range(7))


def test_three_dimensions_are_refused(tmp_path):
    path = tmp_path / "cube.npy"
    np.save(path, np.zeros((2, 2, 2), dtype=np.int64))
    with pytest.raises(PosembError, match=r"shape \[2, 2, 2\]; a \(batch, seq_len\) array, or one row"):
        read_ids(str(path), 100)
