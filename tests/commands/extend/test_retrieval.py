"""`posemb extend MODEL --to L --text FILE`: each candidate's copy retrieval by distance, from the forward of its loss.

The tiny Llama (trained 32 positions) measured at L = 320 on its text through ``measure_candidates`` with
``save_ids=`` (the ids of every forward, one row each). Oracle: transformers' own forward
``model(input_ids).logits`` on each saved row with the candidate's ``rope_parameters`` (eager attention),
its argmax and cross-entropy taken here; the probes' scores, the means by distance, ``holds_to`` and the
text's loss (the probe tokens' predictions left out) in plain loops. The document validates against the
shipped schema, every key described; the terminal draws a retrieval curve per candidate beside its loss
curve, and the figure the report's accuracies.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("accelerate")
pytest.importorskip("gguf")

import torch  # noqa: E402
from rich.console import Console  # noqa: E402

from tests.cli.test_json_schemas import check  # noqa: E402
from tests.extend_measure_setup import tiny_files  # noqa: E402
from tests.loss_oracle import oracle_model  # noqa: E402
from tests.tiny_language_model import TEXT, ids_of  # noqa: E402

pytestmark = pytest.mark.slow

LENGTH = 320
NAMES = ["none", "linear", "yarn"]
SPAN = 16
ATOL = 2e-5
GAP = 1e-4  # an argmax is compared where the top two logits are further apart than float32's noise


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_files(tmp_path_factory.mktemp("extend_retrieval"))


@pytest.fixture(scope="module")
def measured(tiny, tmp_path_factory):
    """The report measured at L with save_ids, its document, and the rows of ids saved."""
    from posemb_cli.commands.extend.measure import measure_candidates, open_measured
    from posemb_cli.commands.extend.predict import run_extend
    from posemb_cli.sources.naming.model_file import model_file

    saved = tmp_path_factory.mktemp("saved") / "ids.json"
    report = run_extend(tiny.folder, to=LENGTH, scalings=NAMES)
    model = open_measured(model_file(tiny.folder), what="--text", device="cpu", dtype="float32")
    report = measure_candidates(model, report, text=[tiny.text], ids=None, save_ids=str(saved))
    doc = report.to_dict()
    check("extend", doc)
    return report, doc, np.asarray(json.loads(saved.read_text(encoding="utf-8")), dtype=np.int64)


@pytest.fixture(scope="module")
def oracle(tiny, measured):
    """Per candidate: (L - 1,) losses, hits and top-two gaps from ``model(row).logits`` on its own saved row."""
    _report, doc, rows = measured
    out = {}
    for row, one in enumerate(doc["candidates"]):
        ids = torch.as_tensor(rows[row])[None]
        with torch.no_grad():
            logits = oracle_model(tiny.folder, one["rope_parameters"])(input_ids=ids).logits[0, :-1].double()
        targets = ids[0, 1:]
        losses = -logits.log_softmax(-1)[torch.arange(targets.shape[0]), targets]
        top = logits.topk(2, dim=-1).values
        out[one["scaling"]] = (losses.numpy(), (logits.argmax(-1) == targets).numpy(),
                               (top[:, 0] - top[:, 1]).numpy())
    return out


def test_the_saved_rows_are_the_window_with_the_probes_written(tiny, measured):
    report, doc, rows = measured
    assert rows.shape == (len(NAMES), LENGTH)  # one row per forward, in the candidates' order
    assert doc["measurement"]["saved_ids"].endswith("ids.json")
    probes = doc["candidates"][0]["measured"]["retrieval"]["probes"]
    assert probes and {probe["region"] for probe in probes} == {"beyond"}  # T = 32: no repeat fits before it
    held = set()
    for probe in probes:
        for row in rows:
            assert row[probe["first"]:probe["first"] + SPAN].tolist() == row[probe["repeat"]:probe["repeat"] + SPAN] \
                .tolist()
        held.update(range(probe["first"], probe["first"] + SPAN))
        held.update(range(probe["repeat"], probe["repeat"] + SPAN))
    window = ids_of(tiny.tokenizer, TEXT)[:LENGTH]
    special = set(doc["candidates"][0]["measured"]["retrieval"]["pool"]["left_out"])
    assert special == {tiny.tokenizer.bos_token_id}  # the window's one special token, left out of the pool
    for row in rows:
        np.testing.assert_array_equal(row, rows[0])
        assert all(row[p] == window[p] for p in range(LENGTH) if p not in held)
        assert not special & {int(row[p]) for p in held}
    np.testing.assert_array_equal(report.measurement.ids, rows[0])


def test_every_candidate_keeps_its_keys_and_gains_retrieval(measured):
    _report, doc, _rows = measured
    for row, one in enumerate(doc["candidates"]):
        measured_keys = list(one["measured"])
        assert measured_keys == ["tokens", "loss_by_position", "within", "beyond", "ratio", "mean_loss", "seconds",
                                 "load_seconds", "probe_seconds", "retrieval"]
        assert one["measured"]["probe_seconds"] > 0
        retrieval = one["measured"]["retrieval"]
        assert retrieval["forward"] == "own" and retrieval["threshold"] == 0.5
        assert {probe["row"] for probe in retrieval["probes"]} == {row}
        assert retrieval["excluded_positions"] == 2 * SPAN * len(retrieval["probes"])
        assert "a forward of their own" in retrieval["note"] and "ids given" in retrieval["note"]


@pytest.mark.parametrize("name", NAMES)
def test_each_probe_equals_transformers_forward(measured, oracle, name):
    report, doc, _rows = measured
    losses, hits, gap = oracle[name]
    item = report.measurement.measured(name)
    assert not np.allclose(item.losses, losses, rtol=0, atol=ATOL)  # the loss is the ids given's, not the probes'
    clear = gap > GAP
    np.testing.assert_array_equal(item.hits[clear], hits[clear])
    retrieval = next(one for one in doc["candidates"] if one["scaling"] == name)["measured"]["retrieval"]
    for probe in retrieval["probes"]:
        tokens = range(probe["repeat"] + 1, probe["repeat"] + SPAN)
        assert probe["scored"] == [tokens.start, tokens.stop]
        assert all(clear[t - 1] for t in tokens)
        assert probe["accuracy"] == pytest.approx(sum(bool(hits[t - 1]) for t in tokens) / 15, abs=1e-12)
        assert probe["loss"] == pytest.approx(sum(float(losses[t - 1]) for t in tokens) / 15, abs=ATOL)


@pytest.mark.parametrize("name", NAMES)
def test_by_distance_and_holds_to_in_plain_loops(measured, name):
    _report, doc, _rows = measured
    retrieval = next(one for one in doc["candidates"] if one["scaling"] == name)["measured"]["retrieval"]
    distances = sorted({probe["distance"] for probe in retrieval["probes"]})
    assert [entry["distance"] for entry in retrieval["by_distance"]] == distances
    held = None
    for entry in retrieval["by_distance"]:
        mine = [probe for probe in retrieval["probes"] if probe["distance"] == entry["distance"]]
        accuracy = sum(probe["accuracy"] for probe in mine) / len(mine)
        assert entry["probes"] == len(mine) and entry["accuracy"] == pytest.approx(accuracy, abs=1e-12)
        assert entry["beyond"]["probes"] == len(mine) and entry["within"] is None
        if held is not False:
            held = entry["distance"] if accuracy >= 0.5 else False
    assert retrieval["holds_to"]["distance"] == (held or None) == retrieval["holds_to"]["beyond"]
    assert retrieval["holds_to"]["within"] is None


@pytest.mark.parametrize("name", NAMES)
def test_the_loss_by_position_is_that_of_the_ids_given(tiny, measured, oracle, name):
    """transformers' own forward on the ids given, every position: the probes' forward (``oracle``) is another."""
    from tests.loss_oracle import oracle_losses

    report, doc, _rows = measured
    one = next(one for one in doc["candidates"] if one["scaling"] == name)
    losses = oracle_losses(tiny.folder, one["rope_parameters"], report.measurement.window.ids)
    measured_doc = one["measured"]
    assert sum(bucket["positions"] for bucket in measured_doc["loss_by_position"]) == LENGTH - 1
    within = [float(losses[p]) for p in range(LENGTH - 1) if p < 32]
    beyond = [float(losses[p]) for p in range(LENGTH - 1) if p >= 32]
    assert measured_doc["within"] == pytest.approx(sum(within) / len(within), rel=1e-3)
    assert measured_doc["beyond"] == pytest.approx(sum(beyond) / len(beyond), rel=1e-3)
    assert measured_doc["mean_loss"] == pytest.approx(sum(within + beyond) / (LENGTH - 1), rel=1e-3)
    probed = oracle[name][0]
    assert measured_doc["mean_loss"] != pytest.approx(float(np.mean(probed)), rel=1e-3)


@pytest.mark.parametrize("width", [40, 80, 120])
def test_the_terminal_draws_a_retrieval_curve_beside_each_loss_curve(measured, width):
    from tests.cli.test_whole_figures import cuts

    report, doc, _rows = measured
    console = Console(file=io.StringIO(), width=width, color_system=None, no_color=True)
    console.print(report)
    out = console.file.getvalue()
    assert cuts(out) == [] and max(len(line) for line in out.splitlines()) <= width
    lines = out.splitlines()
    for one in doc["candidates"]:
        retrieval = one["measured"]["retrieval"]
        start = next(index for index, line in enumerate(lines)
                     if line.startswith(f"  {one['scaling']} ") and "│" in line)
        block = " ".join(lines[start:start + 4])
        curve = block.split("beyond ", 1)[1].split()[0]
        levels = "▁▂▃▄▅▆▇█"
        assert curve == "".join(levels[round(entry["beyond"]["accuracy"] * 7)] for entry in retrieval["by_distance"])
        held = retrieval["holds_to"]["distance"]
        assert f"copies to {'none' if held is None else f'{held:,}'}" in block
    flat = " ".join(out.split())
    assert "copy retrieval by distance, the top-1 accuracy on the repeat of 16 random tokens" in flat
    sentence = flat.split("Copies to (")[1]
    for name in doc["agreement"]["measured_ranking"]:
        held = next(one for one in doc["candidates"] if one["scaling"] == name)["measured"]["retrieval"]["holds_to"]
        distance = held["distance"]
        assert f"{name} {'none' if distance is None else f'{distance:,}'}" in sentence


def test_the_figure_draws_the_reports_accuracies(measured):
    pytest.importorskip("matplotlib")
    report, doc, _rows = measured
    figure = report.plot()
    axes = figure.axes[-1]
    lines = [line for line in axes.get_lines() if len(line.get_xdata()) > 0 and line.get_label().endswith("T")]
    assert len(lines) == len(NAMES)  # beyond T only: no repeat fits before T = 32
    for line, name in zip(lines, report.measurement.ranking, strict=True):
        retrieval = next(one for one in doc["candidates"] if one["scaling"] == name)["measured"]["retrieval"]
        assert list(line.get_xdata()) == [entry["distance"] for entry in retrieval["by_distance"]]
        assert list(line.get_ydata()) == [entry["beyond"]["accuracy"] for entry in retrieval["by_distance"]]
        assert line.get_label().startswith(f"{name} (copies to ") and line.get_label().endswith("beyond T")
