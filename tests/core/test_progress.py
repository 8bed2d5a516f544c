"""The run layer names every stage of a run and reports real fractions through the Progress protocol."""

from __future__ import annotations

from posemb_cli.core.progress import SILENT, Prefixed, Progress
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.analysis import run_schemes

from tests.progress_recorder import Recorder


def test_recorder_and_silent_follow_the_protocol():
    assert isinstance(Recorder(), Progress)
    assert isinstance(SILENT, Progress)
    assert isinstance(Prefixed(SILENT, "x"), Progress)


def test_every_stage_of_every_scheme_is_named_and_counted():
    recorder = Recorder()
    config = EmbeddingConfig(dim=16, ctx=300, vocab=50, batch=2, seq_len=8, device="cpu", max_offset=3)
    run_schemes(config, ("learned", "rope"), progress=recorder)
    names = [name for name, _, _ in recorder.stages]
    assert names[0] == "prepare the batch"
    for scheme in ("learned", "rope"):
        for stage in ("build and forward", "neighbour similarity", "relative check", "scorecard",
                      "decay bound and spectrum"):
            assert f"{scheme}: {stage}" in names
    # the neighbour stage covers every row of the 300-row table, once
    for name, total, done in recorder.stages:
        if name.endswith("neighbour similarity"):
            assert (total, done) == (300, 300)
        if total is not None:
            assert done <= total


def test_order_and_padding_name_a_stage_per_scheme():
    from posemb_cli.commands.order.measure import run_order
    from posemb_cli.commands.padding.measure import run_padding
    from posemb_cli.run.config import with_position_settings

    schemes = ("none", "learned", "rope")
    config = with_position_settings(EmbeddingConfig(dim=16, ctx=32, vocab=50, batch=2, seq_len=8, device="cpu",
                                                    max_offset=1), schemes=schemes)
    runs = (lambda p: run_order(config, schemes, progress=p), lambda p: run_padding(config, schemes, 2, progress=p))
    for run in runs:
        recorder = Recorder()
        run(recorder)
        names = [name for name, _, _ in recorder.stages]
        assert names[0] == "prepare the batch"
        assert [name.split(":")[0] for name in names[1:]] == list(schemes)


def test_sweep_names_each_configuration():
    from posemb_cli.commands.sweep.run import plan_sweep, run_sweep

    points = plan_sweep(schemes=("learned", "sinusoidal"), dims=(8, 16), ctxs=(32,), bases=(10000.0,), vocab=40,
                        batch=2, device="cpu", max_offset=2)
    recorder = Recorder()
    reports = list(run_sweep(points, progress=recorder))
    assert len(reports) == 4
    names = {name for name, _, _ in recorder.stages}
    for index in range(1, 5):
        assert f"configuration {index} of 4: " + ("learned" if index % 2 else "sinusoidal") + ": scorecard" in names
