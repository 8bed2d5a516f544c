"""`posemb heads` as a command: its JSON against the shipped schema, the same bytes twice, deliberate tie-breaking,
the terminal output and figure, refusals (exit 2, one line naming the file and what is missing)."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.cli.test_json_schemas import check
from tests.commands.heads.test_transformers import saved_model
from tests.model_files import save_safetensors
from tests.model_zoo import zoo_model, zoo_weights_only
from tests.progress_recorder import Recorder
from tests.refusals import check_refused

runner = CliRunner()


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("heads") / "llama"
    saved_model("llama_gqa", folder)
    return str(folder)


def _json(*args: str) -> dict:
    result = runner.invoke(app, ["heads", *args, "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


@pytest.mark.parametrize("family", ["llama_gqa", "gemma3", "qwen2_biases", "smollm3_nope"])
def test_json_validates_against_the_schema_and_every_key_is_described(tmp_path, family):
    saved_model(family, tmp_path / family)
    doc = _json("--checkpoint", str(tmp_path / family))
    check("heads", doc)
    assert doc["labels"] == {label: sum(head["label"] == label for layer in doc["layers"] for head in layer["heads"])
                             for label in ("positional", "semantic", "mixed")}
    if family == "qwen2_biases":  # biases are left out and named
        assert doc["layers"][0]["biases"] == ["model.layers.0.self_attn.q_proj.bias",
                                              "model.layers.0.self_attn.k_proj.bias"]
    if family == "gemma3":  # two RoPE sets: the model-wide critical pair is null, each set and layer has its own
        by_name = {one["name"]: one for one in doc["rope_sets"]}
        assert set(by_name) == {"sliding_attention", "full_attention"}
        assert by_name["sliding_attention"]["critical_pair"] != by_name["full_attention"]["critical_pair"]
        assert doc["critical_pair"] is None
        assert by_name["sliding_attention"]["context_from"] == "sliding_window"
        assert [layer["critical_pair"] for layer in doc["layers"]] == [
            by_name[layer["rope_set"]]["critical_pair"] for layer in doc["layers"]]


def test_same_flags_give_the_same_bytes(llama):
    first = runner.invoke(app, ["heads", "--checkpoint", llama, "--json"])
    second = runner.invoke(app, ["heads", "--checkpoint", llama, "--json"])
    assert first.exit_code == 0 and first.stdout == second.stdout


def test_default_distances_are_powers_of_two_and_the_last_within_the_context(llama):
    doc = _json("--checkpoint", llama)
    assert doc["distances"] == [0, 1, 2, 4, 8, 16, 32, 63]  # max_position_embeddings 64
    assert _json("--checkpoint", llama, "--distances", "9,0,3")["distances"] == [0, 3, 9]


def test_critical_pair_and_high_pairs_follow_the_wavelengths(llama):
    doc = _json("--checkpoint", llama)
    one, = doc["rope_sets"]
    wavelengths = 2 * np.pi * 10_000.0 ** (np.arange(0, 16, 2) / 16)  # LlamaConfig's base, head of 16, unscaled
    np.testing.assert_allclose(one["wavelengths"], wavelengths, rtol=1e-12)
    assert one["training_context"] == 64 and one["context_from"] == "max_position_embeddings"
    assert one["critical_pair"] == next(f for f, w in enumerate(wavelengths) if w > 64) == doc["critical_pair"]
    assert one["high_pairs"] == sum(w <= np.sqrt(2 * np.pi * 64) for w in wavelengths)
    for layer in doc["layers"]:
        for head in layer["heads"]:
            share = np.array(head["pair_share"])
            assert head["high_share"] == pytest.approx(share[: one["high_pairs"]].sum(), rel=1e-12)
            assert head["beyond_critical_share"] == pytest.approx(share[one["critical_pair"]:].sum(), rel=1e-12)
            expected = ("positional" if head["high_share"] > 0.5 else
                        "semantic" if head["beyond_critical_share"] > 0.5 else "mixed")
            assert head["label"] == expected


def test_picks_break_ties_by_the_lowest_layer_then_head(tmp_path):
    """Two identical layers whose heads 0 and 1 are identical: four equal shares bit for bit, listed by layer, then
    head, whichever way the rounding went."""
    model = saved_model("llama_gqa", tmp_path / "base")
    state = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    for name in [n for n in state if ".layers.1." in n]:
        state[name] = state[name.replace(".layers.1.", ".layers.0.")].clone()
    for layer in (0, 1):
        q = state[f"model.layers.{layer}.self_attn.q_proj.weight"]
        q[16:32] = q[0:16]  # head 1 = head 0 (both read key head 0)
    folder = tmp_path / "tied"
    folder.mkdir()
    save_safetensors(folder / "model.safetensors", {n: t.contiguous().numpy() for n, t in state.items()})
    (folder / "config.json").write_text((tmp_path / "base" / "config.json").read_text())
    doc = _json("--checkpoint", str(folder), "--top", "8")
    for picks in doc["most"].values():
        keys = [(-pick["share"], pick["layer"], pick["head"]) for pick in picks]
        assert keys == sorted(keys)
        tied = [(pick["layer"], pick["head"]) for pick in picks if (pick["layer"], pick["head"]) in
                {(0, 0), (0, 1), (1, 0), (1, 1)}]
        assert tied == [(0, 0), (0, 1), (1, 0), (1, 1)]
        at = [(p["layer"], p["head"]) for p in picks].index((0, 0))
        assert len({p["share"] for p in picks[at:at + 4]}) == 1


@pytest.mark.parametrize("width", [80, 120])
def test_terminal_output_shows_every_figure_whole(llama, width, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", str(width))
    result = runner.invoke(app, ["heads", "--checkpoint", llama, "--top", "3"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "…" not in out and "Most weight on high-frequency pairs" in out and "critical pair" in out
    assert max(len(line) for line in out.splitlines()) <= width
    doc = _json("--checkpoint", llama, "--top", "3")
    top = doc["most"]["high"][0]
    head = doc["layers"][top["layer"]]["heads"][top["head"]]
    assert f"{head['high_share']:.3f}" in out and f"{head['beyond_critical_share']:.3f}" in out


def test_half_block_heatmap_draws_two_layers_a_line(llama):
    from posemb_cli.commands.heads.measure import run_heads
    from posemb_cli.commands.heads.render import HeadsHeatmap
    from rich.console import Console

    report = run_heads(llama)
    console = Console(file=io.StringIO(), width=100, color_system="truecolor", force_terminal=True)
    console.print(HeadsHeatmap(report.layers))
    lines = console.file.getvalue().splitlines()
    assert sum("▀" in line for line in lines) == 1  # two layers: one line of half blocks


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_is_written(llama, tmp_path, suffix):
    pytest.importorskip("matplotlib")
    path = tmp_path / f"heads{suffix}"
    result = runner.invoke(app, ["heads", "--checkpoint", llama, "--plot", str(path), "--no-plot"])
    assert result.exit_code == 0, result.output
    assert path.stat().st_size > 1000


def test_progress_advances_once_per_layer(tmp_path):
    from posemb_cli.commands.heads.measure import run_heads

    saved_model("smollm3_nope", tmp_path / "m")

    recorder = Recorder()
    run_heads(str(tmp_path / "m"), progress=recorder)
    assert recorder.named == [("reading q and k of 3 layers", 4)] and recorder.done == 4


@pytest.mark.parametrize(("flags", "needle"), [
    (["--distances", "-1"], "--distances needs a comma list of whole numbers"),
    (["--distances", "1,x"], "--distances needs a comma list of whole numbers"),
    (["--distances", "2²"], "--distances needs a comma list of whole numbers"),
    (["--distances", "9" * 5000], "--distances needs a comma list of whole numbers"),
    (["--distances", str(2**41)], "--distances: at most 4096 distances, each at most 2**40"),
    (["--distances", "2,2"], "--distances: each distance may be given once"),
    (["--distances", ",".join(map(str, range(5000)))], "--distances: at most 4096 distances"),
    (["--top", "0"], "--top must be from 1 to 1000"),
    (["--plot", "x.gif"], "--plot x.gif: unsupported extension"),
])
def test_bad_flags_are_refused(llama, flags, needle):
    check_refused(["heads", "--checkpoint", llama, *flags], needle)


def test_models_posemb_cannot_read_are_refused_naming_the_file(tmp_path):
    check_refused(["heads", "--checkpoint", zoo_model("gpt2")], "heads reads the query and key weights of RoPE")
    check_refused(["heads", "--checkpoint", zoo_weights_only("llama", tmp_path)], "no config.json beside the weights")
    check_refused(["heads", "--checkpoint", str(tmp_path / "none.safetensors")], "no such file")


def _edited(tmp_path, llama: str, *, rename=None, drop=(), add=None, config=None) -> str:
    """A copy of the tiny llama with tensors renamed, dropped or added, or its config changed."""
    from safetensors.torch import load_file

    tensors = load_file(os.path.join(llama, "model.safetensors"))
    tensors = {(rename(name) if rename else name): t.numpy() for name, t in tensors.items() if name not in drop}
    tensors.update(add or {})
    folder = tmp_path / "edited"
    folder.mkdir()
    save_safetensors(folder / "model.safetensors", tensors)
    fields = json.loads(open(os.path.join(llama, "config.json")).read())
    (folder / "config.json").write_text(json.dumps({**fields, **(config or {})}))
    return str(folder)


def test_a_checkpoint_without_known_projections_is_refused(tmp_path, llama):
    path = _edited(tmp_path, llama, rename=lambda n: n.replace("q_proj", "query").replace("k_proj", "key"))
    check_refused(["heads", "--checkpoint", path], "no query and key projections under the names posemb reads")


def test_projections_of_another_shape_are_refused(tmp_path, llama):
    path = _edited(tmp_path, llama, config={"num_key_value_heads": 4})
    check_refused(["heads", "--checkpoint", path], "do not have the model's shape")


def test_a_missing_input_norm_is_refused(tmp_path, llama):
    path = _edited(tmp_path, llama, drop=("model.layers.1.input_layernorm.weight",))
    check_refused(["heads", "--checkpoint", path], "layer 1 has no input_layernorm.weight")


def test_an_unmodelled_qk_norm_is_refused(tmp_path, llama):
    extra = {"model.layers.0.self_attn.q_layernorm.norms.0.weight": np.ones(16, np.float32)}
    path = _edited(tmp_path, llama, add=extra)
    check_refused(["heads", "--checkpoint", path], "q_layernorm.norms.0.weight normalises queries or keys")


def test_a_family_whose_norms_posemb_does_not_know_is_refused(tmp_path, llama):
    path = _edited(tmp_path, llama, config={"model_type": "internlm2", "architectures": ["InternLM2ForCausalLM"]})
    check_refused(["heads", "--checkpoint", path], "model_type 'internlm2': posemb does not know how its runtime")


def test_a_layer_that_does_not_fit_in_memory_is_refused(llama, monkeypatch):
    import posemb_cli.sources.bounds.limits as limits
    import posemb_cli.sources.weights.qk_weights as qk_weights

    def short_of_memory(what: str, needed: int, *, detail: str = "", about: str = "") -> None:  # the config fits
        with monkeypatch.context() as patched:
            patched.setattr(limits, "cpu_available_bytes", lambda: 1024)
            limits.require_memory(what, needed, detail=detail, about=about)

    monkeypatch.setattr(qk_weights, "require_memory", short_of_memory)
    check_refused(["heads", "--checkpoint", llama], "layer 0's query and key weights: reading it needs about")


def test_torch_is_not_imported_for_a_refused_flag():
    from tests.cli.test_startup import probe

    report = probe(["heads", "--checkpoint", "x", "--distances", "a"])
    assert report["code"] == 2 and "torch" not in report["heavy"] and "numpy" not in report["heavy"]


def test_weights_are_read_one_layer_at_a_time(llama, monkeypatch):
    """Every layer's tensors are read in layer order, through the format's reader or straight into a buffer
    (``tests/commands/heads/test_read_ahead.py``: at most one layer ahead of the one measured)."""
    import posemb_cli.sources.weights.tensor_files as tensor_files

    opened = tensor_files.open_tensor_file
    reads: list[str] = []

    def recording(path, **kwargs):
        found = opened(path, **kwargs)
        original = found.reader

        def read(name):
            reads.append(name)
            return original(name)

        def locate(name):  # a safetensors tensor read straight into a buffer
            reads.append(name)
            return located(name)

        located = found.locator
        object.__setattr__(found, "reader", read)
        object.__setattr__(found, "locator", locate)
        return found

    monkeypatch.setattr(tensor_files, "open_tensor_file", recording)
    _json("--checkpoint", llama)
    layers = [int(name.split(".")[2]) for name in reads]
    assert layers == sorted(layers) and set(layers) == {0, 1}


def test_a_bin_state_dict_and_a_sharded_directory_give_the_safetensors_figures(tmp_path):
    import torch

    model = saved_model("llama_gqa", tmp_path / "one")
    (tmp_path / "bin").mkdir()
    torch.save(model.state_dict(), tmp_path / "bin" / "pytorch_model.bin")
    (tmp_path / "bin" / "config.json").write_text((tmp_path / "one" / "config.json").read_text())
    model.save_pretrained(tmp_path / "shards", max_shard_size="20KB")
    assert (tmp_path / "shards" / "model.safetensors.index.json").is_file()
    expected = _json("--checkpoint", str(tmp_path / "one"))["layers"]
    for folder in ("bin", "shards"):
        assert _json("--checkpoint", str(tmp_path / folder))["layers"] == expected


def test_a_gguf_architecture_posemb_does_not_know_is_refused(tmp_path):
    from tests.gguf_files import write_gguf

    meta = {"context_length": 64, "embedding_length": 64, "block_count": 1, "attention.head_count": 4,
            "attention.head_count_kv": 4, "rope.freq_base": 10_000.0}
    path = write_gguf(tmp_path / "m.gguf", "internlm2", meta,
                      {"token_embd.weight": (np.zeros((10, 64), np.float32), None)}, tokens=10)
    check_refused(["heads", "--checkpoint", path], "GGUF architecture 'internlm2': posemb does not know how")
