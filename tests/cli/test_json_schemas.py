"""Every JSON document the tool prints validates against its shipped schema, and the schemas can fail.

The documents are the commands' real ``--json`` output (small sizes); the
schemas are the files ``posemb schema NAME`` prints (docs/json-contract.md).
"""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest
from jsonschema import Draft202012Validator
from posemb_cli.cli.app import app
from posemb_cli.schemas import SCHEMA_NAMES, load_schema, schema_text
from typer.testing import CliRunner

from tests.gguf_files import write_gguf
from tests.model_files import (
    gpt2_tensors,
    opt_tensors,
    save_safetensors,
    save_torch,
    write_config,
)
from tests.model_zoo import zoo_model
from tests.schema_coverage import undescribed_keys

runner = CliRunner()
SMALL = ["--dim", "16", "--ctx", "32", "--vocab", "40", "-b", "2", "-t", "8", "-k", "3", "--device", "cpu"]
HEADS = ["--heads", "4"]  # read by alibi only: passed where alibi is among the schemes
ALL = "learned,sinusoidal,rope,alibi,none"
SCALINGS = {
    "none": [],
    "linear": ["--rope-factor", "2"],
    "ntk": ["--rope-factor", "2"],
    "dynamic": ["--rope-factor", "2"],
    "yarn": ["--rope-factor", "4"],
    "llama3": ["--rope-factor", "4", "--rope-layout", "half"],
}


def run_json(*args) -> list[dict]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def check(name: str, document: dict) -> None:
    """The document validates, and every key it holds is described by the schema (the contract names it)."""
    errors = sorted(Draft202012Validator(load_schema(name)).iter_errors(document), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    assert undescribed_keys(document, load_schema(name)) == []


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_shipped_schema_is_a_valid_draft_2020_12_schema(name):
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "$ref" not in json.dumps(schema).replace('"$ref": "#/', "")  # self-contained: local references only


def test_the_package_ships_one_file_per_name():
    shipped = sorted(p.name for p in resources.files("posemb_cli.schemas").iterdir() if p.name.endswith(".json"))
    assert shipped == sorted(f"{name}.schema.json" for name in SCHEMA_NAMES)


def test_schema_command_prints_the_shipped_file():
    for name in SCHEMA_NAMES:
        result = runner.invoke(app, ["schema", name])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == json.loads(schema_text(name))


def test_schema_command_refuses_an_unknown_name():
    result = runner.invoke(app, ["schema", "compares"])
    assert result.exit_code == 2 and result.stdout == ""
    line, = result.stderr.strip().splitlines()
    assert "'compares'" in line and "compare, inspect, order, bench, sweep" in line


def test_compare_every_scheme():
    doc, = run_json("compare", "--schemes", ALL, *SMALL, *HEADS)
    check("compare", doc)
    assert [s["scheme"] for s in doc["schemes"]] == ALL.split(",")


def test_compare_default_schemes():
    doc, = run_json("compare", *SMALL)
    check("compare", doc)


@pytest.mark.parametrize("scheme", ALL.split(","))
def test_inspect_every_scheme(scheme):
    doc, = run_json("inspect", "--scheme", scheme, *SMALL, *(HEADS if scheme == "alibi" else []))
    check("inspect", doc)


@pytest.mark.parametrize("scaling", list(SCALINGS))
def test_inspect_and_compare_rope_with_every_scaling(scaling):
    flags = ["--rope-scaling", scaling, *SCALINGS[scaling], *SMALL]
    doc, = run_json("inspect", "--scheme", "rope", *flags)
    check("inspect", doc)
    assert ("inv_freq_unscaled" in doc["bands"][0]) == (scaling != "none")
    doc, = run_json("compare", "--schemes", "sinusoidal,rope", *flags)
    check("compare", doc)


def test_order():
    doc, = run_json("order", *SMALL, *HEADS)
    check("order", doc)


def test_precision_padding_and_doctor():
    doc, = run_json("precision", "--dim", "16", "--ctx", "300", "--dtypes", "bfloat16,float16")
    check("precision", doc)
    doc, = run_json("precision", "--checkpoint", zoo_model("llama"))
    check("precision", doc)
    assert doc["config"]["source"]["kind"] == "rope"
    doc, = run_json("padding", "--schemes", ALL, "--pad", "2", "--dim", "16", "--ctx", "32", "--vocab", "40",
                    "-b", "2", "-t", "8", "--heads", "4", "--device", "cpu")
    check("padding", doc)
    for flag, family in (("--config", "llama"), ("--checkpoint", "gpt2")):
        result = runner.invoke(app, ["doctor", flag, zoo_model(family), "--json"])
        assert result.exit_code in (0, 3), result.output
        check("doctor", json.loads(result.stdout))


def test_bench():
    doc, = run_json("bench", "--schemes", ALL, "--dim", "8,16", "--ctx", "16", "--vocab", "40", "-b", "1",
                    "--repeats", "2", "--warmup", "0", "--device", "cpu")
    check("bench", doc)
    assert len(doc["results"]) == 10


def test_sweep_lines():
    lines = run_json("sweep", "--schemes", "learned,sinusoidal,rope,none", "--dim", "8,16", "--ctx", "32",
                     "--vocab", "40", "-b", "2", "-t", "8", "-k", "3", "--device", "cpu")
    assert len(lines) == 8
    for line in lines:
        check("sweep", line)
        check("inspect", line)


def test_checkpoint_inspect_and_compare(tmp_path):
    gpt2 = save_safetensors(tmp_path / "model.safetensors", gpt2_tensors())
    doc, = run_json("inspect", "--checkpoint", gpt2, "-b", "2", "-t", "8", "-k", "3", "--device", "cpu")
    check("inspect", doc)
    assert doc["source"]["format"] == "safetensors"
    folder = tmp_path / "opt"
    folder.mkdir()
    write_config(folder, model_type="opt")
    save_torch(folder / "pytorch_model.bin", opt_tensors())
    doc, = run_json("compare", "--checkpoint", str(folder), "--schemes", "sinusoidal,rope", "-b", "2", "-t", "8",
                    "-k", "3", "--device", "cpu")
    check("compare", doc)
    assert doc["schemes"][0]["source"]["position_offset"] == 2


@pytest.mark.parametrize("rope_scaling", [None, {"rope_type": "yarn", "factor": 4.0,
                                                 "original_max_position_embeddings": 16}])
def test_config_inspect(tmp_path, rope_scaling):
    fields = {"model_type": "llama", "num_attention_heads": 4, "hidden_size": 64, "max_position_embeddings": 64,
              "rope_theta": 500000.0, "vocab_size": 100}
    if rope_scaling is not None:
        fields["rope_scaling"] = rope_scaling
    path = write_config(tmp_path, **fields)
    doc, = run_json("inspect", "--config", path, "-b", "2", "-t", "8", "-k", "3", "--device", "cpu")
    check("inspect", doc)
    assert doc["source"]["config"] == path


FEW = ("-b", "2", "-t", "8", "-k", "3", "--device", "cpu")


def test_new_keys_of_the_lesson_schemes():
    docs = {scheme: run_json("inspect", "--scheme", scheme, *SMALL)[0] for scheme in ("learned", "sinusoidal", "rope")}
    for doc in docs.values():
        check("inspect", doc)
        assert doc["config"]["signal_recipe"] == "float64-angles"
    assert docs["learned"]["spectrum"]["explained_variance"] and "context_bound" not in docs["learned"]
    assert docs["rope"]["context_bound"]["first_negative"] >= 1 and docs["sinusoidal"]["context_bound"]


def test_vit_checkpoint_unknown_token_table_and_grid():
    doc, = run_json("inspect", "--checkpoint", zoo_model("vit"), *FEW)
    check("inspect", doc)
    assert doc["params"]["token"] is None and doc["params"]["total"] is None and doc["params"]["overhead"] is None
    assert doc["config"]["model_vocab"] is None and doc["grid"]["side"] == 4 and doc["spectrum"]
    assert doc["source"]["class_token_row"]["row"] == 0 and doc["source"]["token_note"]


def test_t5_checkpoint_relative_bias():
    doc, = run_json("inspect", "--checkpoint", zoo_model("t5"), *FEW)
    check("inspect", doc)
    assert doc["relative_bias"]["buckets"] == 8 and doc["neighbour_similarity"] is None and doc["table"] is None
    broken_doc = copy.deepcopy(doc)
    del broken_doc["relative_bias"]
    assert list(Draft202012Validator(load_schema("inspect")).iter_errors(broken_doc))


def test_bloom_config_alibi_from_config():
    doc, = run_json("inspect", "--config", zoo_model("bloom"), *FEW)
    check("inspect", doc)
    assert doc["scheme"] == "alibi" and doc["source"]["kind"] == "alibi" and doc["source"]["ctx_note"]
    assert doc["source"]["max_position_embeddings"] is None


def test_gemma3_per_layer_type_config(tmp_path):
    from transformers import Gemma3TextConfig

    Gemma3TextConfig(hidden_size=64, num_attention_heads=4, head_dim=16, num_hidden_layers=6, intermediate_size=64,
                     vocab_size=100, max_position_embeddings=128,
                     rope_parameters={"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
                                      "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}},
                     ).save_pretrained(tmp_path)
    doc, = run_json("inspect", "--config", str(tmp_path), *FEW)
    check("inspect", doc)
    assert [entry["layer_type"] for entry in doc["layer_types"]] == ["full_attention", "sliding_attention"]
    assert doc["source"]["layer_type_counts"] == {"sliding_attention": 5, "full_attention": 1}


def test_phi3_longrope_config(tmp_path):
    from transformers import Phi3Config

    Phi3Config(hidden_size=64, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64, vocab_size=100,
               max_position_embeddings=256, original_max_position_embeddings=32,
               rope_parameters={"rope_type": "longrope", "rope_theta": 10000.0,
                                "short_factor": [1.0 + 0.1 * i for i in range(8)],
                                "long_factor": [1.0 + 0.7 * i for i in range(8)]}).save_pretrained(tmp_path)
    doc, = run_json("inspect", "--config", str(tmp_path), *FEW)
    check("inspect", doc)
    assert doc["config"]["rope_scaling"] == "longrope" and doc["source"]["rope_type"] == "longrope"
    assert {"inv_freq_short", "inv_freq_long"} <= set(doc["bands"][0])


def test_gguf_config(tmp_path):
    pytest.importorskip("gguf")
    path = write_gguf(tmp_path / "m.gguf", "llama", {"embedding_length": 64, "attention.head_count": 4,
                                                     "context_length": 128, "rope.freq_base": 500000.0,
                                                     "rope.dimension_count": 16}, tokens=100)
    doc, = run_json("inspect", "--config", path, *FEW)
    check("inspect", doc)
    assert doc["source"]["format"] == "gguf"


def test_the_coverage_check_can_fail(documents):
    document = copy.deepcopy(documents["inspect"])
    document["unlisted_figure"] = 1.0
    document["bands"][0]["unlisted"] = 2
    assert undescribed_keys(document, load_schema("inspect")) == ["$.bands[0].unlisted", "$.unlisted_figure"]


# The schemas can fail: a document missing a required key, or with a value of the wrong type, is refused.

@pytest.fixture(scope="module")
def documents() -> dict:
    return {"compare": run_json("compare", "--schemes", ALL, *SMALL, *HEADS)[0],
            "inspect": run_json("inspect", "--scheme", "rope", "--rope-scaling", "yarn", "--rope-factor", "4",
                                *SMALL)[0],
            "order": run_json("order", *SMALL, *HEADS)[0]}


def broken(document: dict, edit) -> dict:
    copied = copy.deepcopy(document)
    edit(copied)
    return copied


REFUSED = [
    ("inspect", lambda d: d.pop("scorecard"), "'scorecard' is a required property"),
    ("inspect", lambda d: d.pop("config"), "'config' is a required property"),
    ("inspect", lambda d: d["config"].pop("seed"), "'seed' is a required property"),
    ("inspect", lambda d: d["params"].__setitem__("token", "many"), "is not of type 'integer'"),
    ("inspect", lambda d: d["neighbour_similarity"][0].__setitem__("mean", "0.9"), "is not of type 'number', 'null'"),
    ("inspect", lambda d: d["scorecard"]["relative"].__setitem__("pass", 1), "is not of type 'boolean'"),
    ("inspect", lambda d: d["bands"][0].pop("wavelength"), "'wavelength' is a required property"),
    ("inspect", lambda d: d.pop("attention_factor"), "'attention_factor' is a required property"),
    ("inspect", lambda d: d.__setitem__("schema", "posemb.inspect/2"), "'posemb.inspect/1' was expected"),
    ("inspect", lambda d: d["config"].__setitem__("dtype", "float8"), "is not one of"),
    ("compare", lambda d: d["schemes"][3].pop("slopes"), "'slopes' is a required property"),
    ("compare", lambda d: d["schemes"][0]["shapes"].__setitem__("ids", [2.5, 8]), "is not of type 'integer'"),
    ("compare", lambda d: d.__setitem__("schemes", {}), "is not of type 'array'"),
    ("order", lambda d: d["results"][0].__setitem__("equivariant", "yes"), "is not of type 'boolean'"),
    ("order", lambda d: d["results"][1].pop("max_abs_diff"), "'max_abs_diff' is a required property"),
]


@pytest.mark.parametrize(("name", "edit", "message"), REFUSED)
def test_schema_refuses_a_broken_document(documents, name, edit, message):
    check(name, documents[name])  # the real document passes ...
    errors = list(Draft202012Validator(load_schema(name)).iter_errors(broken(documents[name], edit)))
    assert errors, "the schema accepted a broken document"  # ... and the broken one does not
    assert any(message in error.message for error in errors), [error.message for error in errors]


def test_a_document_validates_only_against_its_own_schema(documents):
    assert list(Draft202012Validator(load_schema("compare")).iter_errors(documents["inspect"]))
    assert list(Draft202012Validator(load_schema("inspect")).iter_errors(documents["order"]))


def test_the_contract_doc_names_every_described_key():
    """docs/json-contract.md names (in backticks) every key of the scheme object, source and relative_bias."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "json-contract.md").read_text(encoding="utf-8")
    defs = load_schema("inspect")["$defs"]
    keys = {*defs["scheme_result"]["properties"], *defs["source"]["properties"], *defs["relative_bias"]["properties"],
            *defs["config"]["properties"], *defs["band"]["properties"]}
    assert sorted(key for key in keys if f"`{key}`" not in text and f"`bands[].{key}`" not in text) == []


def test_the_scheme_definitions_are_the_same_in_every_document():
    """inspect, compare and sweep are self-contained files; the definitions they share must not drift apart
    (each config object lists its own command's flags, so ``config`` differs by design)."""
    documents = {name: load_schema(name)["$defs"] for name in ("inspect", "compare", "sweep")}
    shared = set.intersection(*(set(defs) for defs in documents.values())) - {"config"}
    assert {"scheme_result", "coverage", "neighbour", "model", "layer_record"} <= shared
    for name in sorted(shared):
        assert documents["compare"][name] == documents["inspect"][name], name
        assert documents["sweep"][name] == documents["inspect"][name], name
