"""Per scaling, the loss by position of the ids given and the copy probes' retrieval from a forward of their own:
against transformers.

The tiny Llama saved with ``save_pretrained``, a window of 320 ids measured with T = 160 (so that probes
stand within T and beyond it), two scalings. The ids are the text's, but for the model's own greedy
continuation (unscaled) from its 8th token to its 64th, so that some positions are top-1 hits (the random
model hits nothing in its text; a probe changes what it predicts after it). Oracle: transformers' own
forward ``model(input_ids).logits`` (eager attention, another path than the measurement's chunks of hidden
states); the argmax, the cross-entropy, each probe's scored tokens and the text's positions taken here in
plain loops. The ids the forwards ran are read back from the file ``save_ids`` wrote.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from posemb_cli.errors import PosembError
from posemb_cli.runtime import ids_window, measure_scalings, open_model

from tests.loss_oracle import oracle_model
from tests.tiny_language_model import ids_of, scalings

pytestmark = pytest.mark.slow

LENGTH, TRAINED_HERE = 320, 160
SPAN = 16
ATOL = 2e-5  # float32 through two layers: sdpa against eager attention, chunked against whole logits
GAP = 1e-4  # an argmax is compared where the top two logits are further apart than float32's noise


def _chosen():
    return [one for one in scalings(LENGTH) if one.name in ("none", "yarn")]


@pytest.fixture(scope="module")
def greedy(tiny, tmp_path_factory) -> str:
    """An ids file: the text's first 8 tokens, the unscaled model's greedy continuation to 64, the text to 320."""
    folder, _gguf, text, tokenizer = tiny
    model = oracle_model(folder, _chosen()[0].rope_parameters)
    tokens = ids_of(tokenizer, open(text, encoding="utf-8").read()).tolist()
    ids = tokens[:8]
    with torch.no_grad():
        while len(ids) < 64:
            ids.append(int(model(input_ids=torch.tensor([ids]), use_cache=False).logits[0, -1].argmax()))
    ids += tokens[64:LENGTH]
    path = tmp_path_factory.mktemp("greedy") / "greedy.npy"
    np.save(path, np.asarray([ids], dtype=np.int64))
    return str(path)


@pytest.fixture(scope="module")
def measured(tiny, greedy, tmp_path_factory):
    model = open_model(tiny[0], device="cpu")
    window = ids_window(model, greedy, LENGTH)
    saved = tmp_path_factory.mktemp("saved") / "ids.npy"
    run = measure_scalings(model, window, _chosen(), trained_length=TRAINED_HERE, save_ids=str(saved))
    return window, run, np.load(saved)


def _forward(folder, scaling, row) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L - 1,) losses, hits and the gap between the top two logits, from ``model(ids).logits``."""
    ids = torch.as_tensor(row)[None]
    with torch.no_grad():
        logits = oracle_model(folder, scaling.rope_parameters)(input_ids=ids).logits[0, :-1].double()
    targets = ids[0, 1:]
    losses = -logits.log_softmax(-1)[torch.arange(targets.shape[0]), targets]
    top = logits.topk(2, dim=-1).values
    return losses.numpy(), (logits.argmax(-1) == targets).numpy(), (top[:, 0] - top[:, 1]).numpy()


@pytest.fixture(scope="module")
def oracle(tiny, measured):
    """Per scaling, transformers' own forward on the probes' ids (the saved rows)."""
    _window, _run, rows = measured
    return {scaling.name: _forward(tiny[0], scaling, rows[row]) for row, scaling in enumerate(_chosen())}


@pytest.fixture(scope="module")
def given(tiny, measured):
    """Per scaling, transformers' own forward on the ids given (no probe)."""
    window, _run, _rows = measured
    return {scaling.name: _forward(tiny[0], scaling, window.ids) for scaling in _chosen()}


def _spans(probe: dict) -> list[int]:
    return [*range(probe["first"], probe["first"] + SPAN), *range(probe["repeat"], probe["repeat"] + SPAN)]


def test_every_forward_ran_the_window_with_the_probes_written_and_saved_them(measured):
    window, run, rows = measured
    probes = run.scalings[0].to_dict()["retrieval"]["probes"]
    regions = {probe["region"] for probe in probes}
    assert regions == {"within", "beyond"} and len(probes) >= 4
    assert rows.shape == (2, LENGTH) and rows.dtype == np.int64
    for row in rows:
        np.testing.assert_array_equal(row, run.ids)
    held = set()
    for probe in probes:
        first, repeat = probe["first"], probe["repeat"]
        assert list(run.ids[first:first + SPAN]) == list(run.ids[repeat:repeat + SPAN])
        assert set(run.ids[first:first + SPAN].tolist()) <= set(window.ids.tolist()) - {0, 1}  # no special token
        held.update(_spans(probe))
    assert all(run.ids[p] == window.ids[p] for p in range(LENGTH) if p not in held)
    assert run.window.ids is window.ids and run.saved_ids is not None and run.to_dict()["saved_ids"] == run.saved_ids
    for item in run.scalings:  # every scaling's probes stand where the first one's do, scored in its own row
        doc = item.to_dict()["retrieval"]
        assert [(p["first"], p["repeat"]) for p in doc["probes"]] == [(p["first"], p["repeat"]) for p in probes]
        assert {p["row"] for p in doc["probes"]} == {[one.name for one in run.scalings].index(item.name)}


@pytest.mark.parametrize("name", ["none", "yarn"])
def test_losses_and_hits_equal_transformers_logits(measured, oracle, given, name):
    _window, run, _rows = measured
    losses, hits, gap = oracle[name]
    item = run.measured(name)
    assert item.hits.shape == (LENGTH - 1,) and item.hits.dtype == bool
    np.testing.assert_allclose(item.losses, given[name][0], rtol=0, atol=ATOL)  # the ids given, not the probes'
    clear = gap > GAP
    assert clear.mean() > 0.95
    np.testing.assert_array_equal(item.hits[clear], hits[clear])
    if name == "none":  # the control: the greedy part hits (up to the first probe, which changes what the random
        assert 5 <= int(hits[clear].sum()) < LENGTH // 2  # model predicts after it), and not everywhere


@pytest.mark.parametrize("name", ["none", "yarn"])
def test_each_probe_is_scored_from_the_same_forward(measured, oracle, name):
    _window, run, _rows = measured
    losses, hits, _gap = oracle[name]
    doc = run.measured(name).to_dict()["retrieval"]
    assert doc["forward"] == "own" and doc["excluded_positions"] == 2 * SPAN * len(doc["probes"])
    for probe in doc["probes"]:
        tokens = range(probe["repeat"] + 1, probe["repeat"] + SPAN)  # the repeat's 2nd to 16th token
        assert probe["scored"] == [tokens.start, tokens.stop]
        assert probe["accuracy"] == pytest.approx(sum(bool(hits[t - 1]) for t in tokens) / 15, abs=1e-12)
        assert probe["loss"] == pytest.approx(sum(float(losses[t - 1]) for t in tokens) / 15, abs=ATOL)
    for entry in doc["by_distance"]:
        held = [probe for probe in doc["probes"] if probe["distance"] == entry["distance"]]
        assert entry["probes"] == len(held)
        assert entry["accuracy"] == pytest.approx(sum(probe["accuracy"] for probe in held) / len(held), abs=1e-12)
        for region in ("within", "beyond"):
            mine = [probe for probe in held if probe["region"] == region]
            assert (entry[region] is None) == (not mine)
            if mine:
                assert entry[region]["loss"] == pytest.approx(sum(probe["loss"] for probe in mine) / len(mine),
                                                              abs=ATOL)


@pytest.mark.parametrize("name", ["none", "yarn"])
def test_the_loss_by_position_is_that_of_the_ids_given(measured, given, oracle, name):
    """Every bucket, within and beyond: transformers' own forward on the ids given, to 1e-3 relative."""
    _window, run, _rows = measured
    losses = given[name][0]
    doc = run.measured(name).to_dict()
    for bucket in doc["loss_by_position"]:
        held = [float(losses[p]) for p in range(LENGTH - 1) if bucket["from"] <= p < bucket["to"]]
        assert bucket["positions"] == len(held)
        assert bucket["mean_loss"] == pytest.approx(sum(held) / len(held), rel=1e-3)
    within = [float(losses[p]) for p in range(LENGTH - 1) if p < TRAINED_HERE]
    beyond = [float(losses[p]) for p in range(LENGTH - 1) if p >= TRAINED_HERE]
    assert doc["within"] == pytest.approx(sum(within) / len(within), rel=1e-3)
    assert doc["beyond"] == pytest.approx(sum(beyond) / len(beyond), rel=1e-3)
    assert doc["mean_loss"] == pytest.approx(float(losses.mean()), rel=1e-3)
    assert doc["mean_loss"] != pytest.approx(float(oracle[name][0].mean()), rel=1e-3)  # the probes' forward differs


def test_ids_saved_as_json_and_a_file_refused_before_anything_runs(tiny, greedy, measured, tmp_path, monkeypatch):
    _window, run, _rows = measured
    model = open_model(tiny[0], device="cpu")
    window = ids_window(model, greedy, LENGTH)
    saved = tmp_path / "ids.json"
    again = measure_scalings(model, window, _chosen()[:1], trained_length=TRAINED_HERE, save_ids=str(saved))
    assert json.loads(saved.read_text(encoding="utf-8")) == [run.ids.tolist()]
    assert again.to_dict()["saved_ids"] == str(saved)

    def never(*args, **kwargs):
        raise AssertionError("ran before refusing the file")

    monkeypatch.setattr(model, "check_memory", never)
    for path, message in ((tmp_path / "ids.txt", "give a .npy or .json file"),
                          (tmp_path / "missing" / "ids.npy", "no folder")):
        with pytest.raises(PosembError, match=message):
            measure_scalings(model, window, _chosen(), trained_length=TRAINED_HERE, save_ids=str(path))
        assert not path.exists()
