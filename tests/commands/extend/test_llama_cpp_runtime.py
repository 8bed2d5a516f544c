"""`posemb extend MODEL.gguf --ids FILE --runtime llama.cpp`: each candidate measured through llama.cpp itself.

The tiny Llama written as a GGUF file (``tests/tiny_language_model``, trained 32 positions) at L = 96, measured on
the same ids through llama.cpp and through transformers (the safetensors twin). Oracles:

- the binding driven directly with each candidate's printed flags, parsed back here by a translation written in
  this file (not posemb's), its own ``logits_all`` scores turned into losses by a plain log-softmax: the same
  losses as the measurement (llama.cpp against llama.cpp: to float32 rounding);
- transformers' measurement of the same ids: within T, beyond T and the copy accuracy agree within what llama.cpp's
  arithmetic explains: its KV cache holds keys and values in float16 (a relative rounding of 2^-11 on every score
  and value), against transformers' float32, so the mean losses agree to 0.01 nats and the copy accuracy to one
  scored token in a probe's 15 per probe measured.

A candidate llama.cpp has no flags for (dynamic NTK) is left out, with why; without the extra, --runtime llama.cpp
is refused with the install line.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("gguf")
llama_cpp = pytest.importorskip("llama_cpp")

import posemb_cli  # noqa: E402
from posemb_cli.errors import PosembError  # noqa: E402
from posemb_cli.runtime.llama_cpp_backend.flags import binding_parameters  # noqa: E402

from tests.cli.test_json_schemas import check  # noqa: E402
from tests.extend_measure_setup import LENGTH, tiny_files  # noqa: E402

pytestmark = pytest.mark.slow
SCALINGS = "none,linear,yarn,dynamic"
MEAN_NATS = 0.01  # float16 KV cache against float32: see the module docstring


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    files = tiny_files(tmp_path_factory.mktemp("llama_cpp_runtime"))
    ids = tmp_path_factory.mktemp("ids") / "ids.npy"
    np.save(ids, files.window[None])
    return files, str(ids)


@pytest.fixture(scope="module")
def both(tiny):
    files, ids = tiny
    through_llama = posemb_cli.extend(files.gguf, to=LENGTH, ids=ids, scalings=SCALINGS, runtime="llama.cpp")
    through_transformers = posemb_cli.extend(files.folder, to=LENGTH, ids=ids, scalings=SCALINGS, device="cpu")
    return through_llama.to_dict(), through_transformers.to_dict()


def _by_hand(args: list[str]) -> dict:
    """llama.cpp's flags as the binding's parameters, written out here from llama.cpp's common/arg.cpp."""
    words = dict(zip(args[::2], args[1::2], strict=True))
    out: dict = {"n_ctx": int(words["-c"])}
    if "--rope-scaling" in words:
        out["rope_scaling_type"] = {"none": llama_cpp.LLAMA_ROPE_SCALING_TYPE_NONE,
                                    "linear": llama_cpp.LLAMA_ROPE_SCALING_TYPE_LINEAR,
                                    "yarn": llama_cpp.LLAMA_ROPE_SCALING_TYPE_YARN}[words["--rope-scaling"]]
    if "--rope-scale" in words:
        out["rope_freq_scale"] = 1 / float(words["--rope-scale"])
    if "--rope-freq-base" in words:
        out["rope_freq_base"] = float(words["--rope-freq-base"])
    if "--yarn-orig-ctx" in words:
        out["yarn_orig_ctx"] = int(words["--yarn-orig-ctx"])
    return out


def test_the_measurement_names_its_runtime_and_leaves_out_what_it_cannot_run(both):
    doc, _ = both
    check("extend", doc)  # the shipped schema holds the runtime's keys, and a candidate left out
    measurement = doc["measurement"]
    assert measurement["runtime"]["name"] == "llama.cpp" and measurement["runtime"]["version"] == llama_cpp.__version__
    assert [one["scaling"] for one in measurement["left_out"]] == ["dynamic"]
    assert "no flags" in measurement["left_out"][0]["why"]
    for one in doc["candidates"]:
        if one["scaling"] == "dynamic":
            assert "measured" not in one or one["measured"] is None
            continue
        settings = one["measured"]["runtime_settings"]
        assert settings["args"] == one["llama_cpp"]  # exactly the printed flags
        assert settings["binding"] == {**binding_parameters(one["llama_cpp"]), "n_ctx": LENGTH}


def test_the_binding_driven_directly_with_the_printed_flags_gives_the_same_losses(tiny, both):
    files, ids = tiny
    doc, _ = both
    report = posemb_cli.extend(files.gguf, to=LENGTH, ids=ids, scalings="none,yarn", runtime="llama.cpp")
    window = files.window
    for one in report.candidates:
        llm = llama_cpp.Llama(model_path=files.gguf, logits_all=True, verbose=False, n_batch=LENGTH,
                              **_by_hand(one.llama_cpp))
        llm.eval(window.tolist())
        scores = np.asarray(llm.scores[:LENGTH], dtype=np.float64)
        llm.close()
        shifted = scores - scores.max(axis=1, keepdims=True)
        log_prob = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        expected = [-log_prob[p, window[p + 1]] for p in range(LENGTH - 1)]
        np.testing.assert_allclose(report.measurement.measured(one.scaling).losses, expected, rtol=0, atol=1e-4,
                                   err_msg=one.scaling)


def test_llama_cpp_agrees_with_transformers_within_float16_rounding(both):
    through_llama, through_transformers = both
    theirs = {one["scaling"]: one["measured"] for one in through_transformers["candidates"]}
    compared = 0
    for one in through_llama["candidates"]:
        if one["scaling"] == "dynamic":
            continue
        mine, other = one["measured"], theirs[one["scaling"]]
        for key in ("within", "beyond"):
            assert mine[key] == pytest.approx(other[key], abs=MEAN_NATS), (one["scaling"], key)
        probes = mine["retrieval"]["probes"]
        assert [(p["first"], p["repeat"]) for p in probes] == [(p["first"], p["repeat"])
                                                               for p in other["retrieval"]["probes"]]
        for a, b in zip(probes, other["retrieval"]["probes"], strict=True):
            assert abs(a["accuracy"] - b["accuracy"]) <= 1 / 15 + 1e-12, (one["scaling"], a, b)
        compared += 1
    assert compared == 3


def test_without_the_extra_llama_cpp_is_refused_with_the_install_line(tiny, monkeypatch):
    import sys

    files, ids = tiny
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if not installed: importing it raises ImportError
    with pytest.raises(PosembError, match=r"pip install 'posemb\[llamacpp\]'"):
        posemb_cli.extend(files.gguf, to=LENGTH, ids=ids, scalings="none", runtime="llama.cpp")


def test_llama_cpp_runs_a_gguf_file_only(tiny):
    files, ids = tiny
    with pytest.raises(PosembError, match="--runtime llama.cpp: llama.cpp runs a .gguf file"):
        posemb_cli.extend(files.folder, to=LENGTH, ids=ids, scalings="none", runtime="llama.cpp")
