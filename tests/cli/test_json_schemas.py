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
from typer.testing import CliRunner

from posemb_cli.cli.app import app
from posemb_cli.schemas import SCHEMA_NAMES, load_schema, schema_text
from tests.model_files import (
    gpt2_tensors,
    opt_tensors,
    save_safetensors,
    save_torch,
    write_config,
)

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
    errors = sorted(Draft202012Validator(load_schema(name)).iter_errors(document), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


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
