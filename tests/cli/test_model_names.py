"""Every command that reads a model takes it as people name it: a path, a Hugging Face id (and @revision) from the
local cache, an Ollama name, with `--json` figures equal to reading the same file by path.

The stores are laid out as their tools leave them (``tests/naming_stores``): a Hugging Face cache with
snapshots, refs and blobs (a tiny Llama saved by transformers at two revisions, main and the tag v1 with another
base, and a sharded copy), checked by huggingface_hub's own ``scan_cache_dir``; an Ollama store whose manifest
points at a GGUF blob written with gguf.GGUFWriter as llama.cpp's converter writes the same model. Nothing is
downloaded: a model the cache lacks is refused, saying so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.commands.heads.test_transformers import saved_model
from tests.naming_stores import add_to_hf_cache, add_to_ollama_store, hf_cache_is_valid

runner = CliRunner()
COMMIT, OLD = "c" * 40, "d" * 40
# Each command on a tiny model (64 positions, two layers): MODEL goes first.
COMMANDS = {
    "inspect": ["--max-offset", "4", "--seq-len", "8", "--device", "cpu", "--no-plot"],
    "compare": ["--max-offset", "4", "--seq-len", "8", "--device", "cpu"],
    "doctor": [],
    "heads": ["--distances", "0,1,5", "--top", "2"],
    "precision": ["--dtypes", "bfloat16"],
    "padding": ["--seq-len", "8", "--device", "cpu"],
    "extend": ["--to", "256"],
}
# The keys that name the model as typed, which reading the same file by path names otherwise: source.resolved,
# and compare's column labels and config.models; extend names it in source.model and source.found.
NAME_KEYS = {"compare": ("label", "labels", "models"), "extend": ("model", "found")}


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict:
    """Paths and environment of a Hugging Face cache and an Ollama store holding one tiny Llama."""
    gguf = pytest.importorskip("gguf")
    del gguf
    from tests.commands.heads.test_gguf import _llama_meta, gguf_tensors
    from tests.gguf_files import write_gguf

    root = tmp_path_factory.mktemp("stores")
    model = saved_model("llama_gqa", root / "llama")
    model.save_pretrained(root / "sharded", max_shard_size="20KB")
    shards = {path.name: path for path in (root / "sharded").iterdir()}
    assert "model.safetensors.index.json" in shards and len(shards) > 3  # really sharded
    older = root / "older"
    older.mkdir()
    config = json.loads((root / "llama" / "config.json").read_text())
    config["rope_parameters"] = {"rope_type": "default", "rope_theta": 500_000.0}
    (older / "config.json").write_text(json.dumps(config))
    cache = root / "hub"
    main = add_to_hf_cache(cache, "tiny/llama", {"config.json": root / "llama" / "config.json",
                                                 "model.safetensors": root / "llama" / "model.safetensors"},
                           commit=COMMIT)
    v1 = add_to_hf_cache(cache, "tiny/llama", {"config.json": older / "config.json",
                                               "model.safetensors": root / "llama" / "model.safetensors"},
                         commit=OLD, refs=("v1",))
    sharded = add_to_hf_cache(cache, "tiny/llama-sharded", shards, commit=COMMIT)
    assert hf_cache_is_valid(cache)
    file = Path(write_gguf(root / "llama.gguf", "llama", _llama_meta(model.config), gguf_tensors(model, "llama", None),
                           tokens=model.config.vocab_size))
    blob = add_to_ollama_store(root / "ollama", "tiny:2b", file)
    env = {"HF_HUB_CACHE": str(cache), "OLLAMA_MODELS": str(root / "ollama"), "COLUMNS": "100", "NO_COLOR": "1"}
    return {"env": env, "cache": str(cache), "directory": str(root / "llama"), "gguf": str(file),
            "names": {"tiny/llama": str(main), "tiny/llama@v1": str(v1), f"tiny/llama@{OLD}": str(v1),
                      "tiny/llama-sharded": str(sharded), "ollama:tiny:2b": str(blob)}}


def run(stores: dict, *args: str, code: tuple[int, ...] = (0, 3)):
    result = runner.invoke(app, list(args), env=stores["env"])
    assert result.exit_code in code, result.output
    return result


def document(stores: dict, command: str, model: str) -> dict:
    result = run(stores, command, model, *COMMANDS[command], "--json")
    assert "Traceback" not in result.stderr and "--checkpoint" not in result.stderr, result.stderr
    return json.loads(result.stdout)


def without_names(value, command: str = ""):
    """The document without the keys that name the model as typed (``NAME_KEYS``)."""
    if isinstance(value, dict):
        return {key: without_names(item, command) for key, item in value.items()
                if key != "resolved" and not (key in NAME_KEYS.get(command, ()) and isinstance(item, (str, list)))}
    if isinstance(value, list):
        return [without_names(item, command) for item in value]
    return value


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", ["tiny/llama", "tiny/llama@v1", f"tiny/llama@{OLD}", "tiny/llama-sharded",
                                  "ollama:tiny:2b"])
def test_a_named_model_gives_the_figures_of_its_file_read_by_path(stores, command, name):
    path = stores["names"][name]
    named, by_path = document(stores, command, name), document(stores, command, path)
    assert without_names(named, command) == without_names(by_path, command)
    if command != "extend":  # extend names its model in source.model and source.found (its own contract)
        sources = [named["source"]] if "source" in named else [named["config"]["source"]] \
            if command == "precision" else [entry["source"] for entry in named.get("schemes", [named])]
        for source in sources:
            assert source["resolved"]["name"] == name and source["resolved"]["path"] == path
            where = "Ollama store" if name.startswith("ollama:") else "Hugging Face cache"
            assert where in source["resolved"]["found"]


def test_the_revision_is_the_one_named(stores):
    bases = {name: document(stores, "inspect", name)["source"]["rope_theta"]
             for name in ("tiny/llama", "tiny/llama@v1", f"tiny/llama@{OLD}")}
    assert bases == {"tiny/llama": 10_000.0, "tiny/llama@v1": 500_000.0, f"tiny/llama@{OLD}": 500_000.0}


@pytest.mark.parametrize("command", ["inspect", "doctor", "heads", "precision", "padding"])
def test_a_model_with_weights_is_read_as_checkpoint_reads_it(stores, command):
    """MODEL is the flag's reading: the same document, apart from ``resolved``, for the directory, the sharded
    snapshot and the GGUF blob, whose name sits in the source as the path read."""
    for name in ("tiny/llama", "tiny/llama-sharded", "ollama:tiny:2b"):
        path = stores["names"][name]
        flag = run(stores, command, "--checkpoint", path, *COMMANDS[command], "--json")
        assert without_names(document(stores, command, name), command) == json.loads(flag.stdout)


def test_a_gguf_blob_reads_as_its_file(stores):
    """The Ollama blob (no suffix: known by its magic) gives the .gguf file's figures, paths aside."""
    blob, file = stores["names"]["ollama:tiny:2b"], stores["gguf"]
    for command in ("inspect", "heads", "extend"):
        by_blob = json.dumps(without_names(document(stores, command, blob), command)).replace(blob, "FILE")
        by_file = json.dumps(without_names(document(stores, command, file), command)).replace(file, "FILE")
        assert by_blob == by_file


def test_the_sharded_snapshot_gives_the_single_files_figures(stores):
    sharded, single = stores["names"]["tiny/llama-sharded"], stores["names"]["tiny/llama"]
    for command in ("heads", "extend"):
        ours = json.dumps(without_names(document(stores, command, "tiny/llama-sharded"), command))
        theirs = json.dumps(without_names(document(stores, command, "tiny/llama"), command))
        assert json.loads(ours.replace(sharded, "SNAPSHOT"))["layers" if command == "heads" else "candidates"] == \
            json.loads(theirs.replace(single, "SNAPSHOT"))["layers" if command == "heads" else "candidates"]


@pytest.mark.parametrize("command", COMMANDS)
def test_the_terminal_names_the_model_and_how_it_was_found(stores, command):
    result = run(stores, command, "tiny/llama", *COMMANDS[command])
    text = " ".join(result.stdout.split())
    said = "tiny/llama" if command == "extend" else "tiny/llama: Hugging Face cache"  # extend: its own header
    assert said in text and f"Hugging Face cache {stores['cache']}" in text and "revision main" in text


def _refused(stores: dict, args: list[str]) -> str:
    result = run(stores, *args, code=(2,))
    assert result.stdout == "" and "Traceback" not in result.output
    (line,) = result.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize("command", COMMANDS)
def test_a_model_not_cached_is_refused_saying_posemb_does_not_download(stores, command):
    line = _refused(stores, [command, "nobody/nothing", *COMMANDS[command]])
    assert line.startswith("posemb: error: MODEL nobody/nothing: not a file or directory")
    assert stores["cache"] in line and "does not download" in line and "(hf download nobody/nothing)" in line
    line = _refused(stores, [command, "tiny/llama@v9", *COMMANDS[command]])
    assert "revision v9 is not in the Hugging Face cache" in line and "does not download" in line
    assert "(hf download tiny/llama --revision v9)" in line  # the command that fetches what was named


@pytest.mark.parametrize("command", COMMANDS)
def test_a_name_found_nowhere_says_where_posemb_looked(stores, command):
    line = _refused(stores, [command, "ollama:nothing", *COMMANDS[command]])
    assert "no Ollama manifest" in line and str(Path(stores["env"]["OLLAMA_MODELS"]) / "manifests") in line
    assert "does not download" in line
    line = _refused(stores, [command, "nothing-here", *COMMANDS[command]])
    assert "MODEL nothing-here: no such file or directory (looked for " in line and "ollama:NAME" in line


@pytest.mark.parametrize("command, flag", [("inspect", "--config"), ("inspect", "--checkpoint"),
                                           ("doctor", "--config"), ("precision", "--checkpoint"),
                                           ("padding", "--config"), ("heads", "--checkpoint"),
                                           ("compare", "--checkpoint")])
def test_model_with_a_flag_naming_a_model_is_refused(stores, command, flag):
    line = _refused(stores, [command, "tiny/llama", flag, stores["directory"]])
    assert "both name a model" in line


def test_a_table_alone_is_read_as_checkpoint_reads_it(stores, tmp_path):
    """A position table with no config beside it (an .npy array, a model's weights file alone) is a MODEL too."""
    import numpy as np

    from tests.model_zoo import zoo_weights_only

    table = tmp_path / "table.npy"
    np.save(table, np.random.default_rng(0).standard_normal((64, 16)).astype(np.float32))
    for path in (str(table), zoo_weights_only("gpt2", tmp_path)):
        named = document(stores, "inspect", path)
        assert named["source"]["resolved"]["found"] == "a weights file (no config.json beside it)"
        flag = run(stores, "inspect", "--checkpoint", path, *COMMANDS["inspect"], "--json")
        assert without_names(named) == json.loads(flag.stdout)


def test_heads_refuses_a_config_alone_and_asks_for_a_model(stores, tmp_path):
    (tmp_path / "config.json").write_text(Path(stores["directory"], "config.json").read_text())
    line = _refused(stores, ["heads", str(tmp_path / "config.json")])
    assert "heads reads the query and key weights" in line
    assert "heads needs MODEL" in _refused(stores, ["heads"])
    assert "doctor needs MODEL" in _refused(stores, ["doctor"])


def test_a_refusal_from_the_reading_names_model_as_typed(stores):
    """A flag the file sets, refused: the line names MODEL as the user typed it, not a flag they never gave."""
    line = _refused(stores, ["inspect", "tiny/llama", "--base", "500"])
    assert "conflicts with MODEL tiny/llama (" in line and "--checkpoint" not in line and "--config" not in line


def test_the_python_api_takes_the_same_names(stores, monkeypatch):
    import posemb_cli
    from posemb_cli.run.report import to_json

    for key, value in stores["env"].items():
        monkeypatch.setenv(key, value)
    for name in ("tiny/llama@v1", "ollama:tiny:2b"):
        calls = {"inspect": lambda: posemb_cli.inspect_model(name, max_offset=4, seq_len=8, device="cpu", no_plot=True),
                 "doctor": lambda: posemb_cli.doctor(name),
                 "heads": lambda: posemb_cli.heads(name, distances=[0, 1, 5], top=2),
                 "precision": lambda: posemb_cli.precision(model=name, dtypes="bfloat16"),
                 "compare": lambda: posemb_cli.compare(models=[name], max_offset=4, seq_len=8, device="cpu")}
        for command, call in calls.items():
            assert json.loads(to_json(call().to_dict())) == document(stores, command, name), (name, command)


@pytest.mark.parametrize("args, needle", [
    (["inspect", "--config", "LLAMA", "--base", "500"], "--base conflicts with --config"),
    (["inspect", "LLAMA", "--rope-scaling", "yarn", "--rope-factor", "4"], "posemb compare MODEL --scalings yarn:4"),
    (["padding", "--checkpoint", "LLAMA", "--head-dim", "8"], "--head-dim conflicts with --checkpoint"),
    (["inspect", "SINUSOIDAL", "--base", "500"], "which sets the model's sinusoidal table"),
])
def test_a_flag_the_models_file_sets_is_refused_not_ignored(stores, tmp_path, args, needle):
    """Before, --config with --base or --rope-scaling ran the model's own RoPE and printed the flag's value
    nowhere: a silent no-op. Now refused, naming the file that sets it."""
    from tests.model_zoo import zoo_model

    sinusoidal = tmp_path / "config.json"  # the config alone: the table is built from its formula
    sinusoidal.write_text(Path(zoo_model("distilbert_sinusoidal"), "config.json").read_text())
    paths = {"LLAMA": stores["directory"], "SINUSOIDAL": str(sinusoidal)}
    line = _refused(stores, [paths.get(arg, arg) for arg in args])
    assert needle in line
