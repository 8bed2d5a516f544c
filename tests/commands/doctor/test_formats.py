"""`posemb doctor --format github|sarif`: CI annotations that parse back to the findings, at the key's line.

The line a finding points at is found here independently: the config is written pretty-printed and
the test searches its lines for the key. GitHub's workflow commands are parsed back with the
toolkit's escaping undone. The SARIF 2.1.0 JSON schema is not shipped and cannot be fetched in the
test, so ``check_sarif`` checks, field by field, what that schema requires of every object doctor
writes (sarifLog, run, tool, toolComponent, reportingDescriptor, result, message, location,
physicalLocation, artifactLocation, region) and the values it constrains (version, level, ruleIndex,
startLine and startColumn at least 1, uri a URI reference).
"""

from __future__ import annotations

import json
import re
from urllib.parse import unquote, urlsplit

import pytest
from posemb_cli import __version__
from posemb_cli.cli.app import app
from posemb_cli.commands.doctor.catalogue import RULES
from typer.testing import CliRunner

from tests.model_files import gpt2_tensors, save_safetensors, write_config

runner = CliRunner()
SMALL = {"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 1024, "rope_theta": 1e6,
         "torch_dtype": "float32"}
PLANTED = {**SMALL, "max_position_embeddings": 4096, "torch_dtype": "bfloat16",
           "rope_scaling": {"rope_type": "yarn", "factor": 0.5, "orignal_max_position_embeddings": 1024}}
_COMMAND = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")
LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def write(folder, config: dict) -> str:
    path = folder / "config.json"
    path.write_text(json.dumps(config, indent=2))
    return str(path)


def line_of(path: str, key: str, after: str | None = None) -> tuple[int, int]:
    """(line, column) of ``"key":`` in the file, 1-based; after the line holding ``"after":`` when given."""
    lines = open(path, encoding="utf-8").read().split("\n")
    start = next(i for i, line in enumerate(lines) if f'"{after}":' in line) if after else 0
    index = next(i for i in range(start, len(lines)) if f'"{key}":' in lines[i])
    return index + 1, lines[index].index(f'"{key}"') + 1


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["doctor", *args])
    assert result.exit_code in (0, 3), result.output
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout


def unescape(text: str) -> str:
    return text.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def parse_github(text: str) -> list[dict]:
    """Each workflow command back to its level, properties and message."""
    parsed = []
    for line in text.splitlines():
        match = _COMMAND.match(line)
        assert match is not None, line
        properties = dict(item.split("=", 1) for item in match.group(2).split(","))
        parsed.append({"level": match.group(1), **{key: unescape(value) for key, value in properties.items()},
                       "message": unescape(match.group(3))})
    return parsed


def findings(*args: str) -> tuple[int, list[dict]]:
    code, out = invoke(*args, "--json")
    return code, json.loads(out)["findings"]


def test_github_lines_parse_back_to_the_findings_at_their_keys(tmp_path):
    path = write(tmp_path, PLANTED)
    code, out = invoke("--config", path, "--format", "github")
    json_code, expected = findings("--config", path)
    assert code == json_code == 3
    parsed = parse_github(out)
    assert len(parsed) == len(expected) >= 4
    for line, finding in zip(parsed, expected, strict=True):
        assert line["level"] == LEVELS[finding["severity"]] and line["title"] == finding["id"]
        assert line["message"] == f"{finding['message']}\nfix: {finding['fix']}"
        assert line["file"] == path and int(line["line"]) == finding["location"]["line"]
    places = {line["title"]: (int(line["line"]), int(line["col"])) for line in parsed}
    assert places["factor-below-one"] == line_of(path, "factor")
    assert places["unknown-field"] == line_of(path, "orignal_max_position_embeddings")
    assert places["missing-field"] == line_of(path, "rope_scaling")  # the key is missing: its block
    assert places["low-precision-positions"] == line_of(path, "torch_dtype")


def test_a_nested_config_points_into_its_text_config(tmp_path):
    text = {**SMALL, "model_type": "llama", "rope_scaling": {"rope_type": "linear", "factor": 2.0, "comment": "x"}}
    path = write(tmp_path, {"model_type": "llava", "text_config": text})
    _, found = findings("--config", path)
    located = {finding["id"]: finding["location"] for finding in found}
    assert located["unknown-field"]["key"] == "text_config.rope_scaling.comment"
    assert (located["unknown-field"]["line"], located["unknown-field"]["column"]) == line_of(path, "comment")
    text = {**SMALL, "model_type": "llama", "max_position_embeddings": 32768, "rope_theta": 10000.0}
    path = write(tmp_path, {"model_type": "llava", "text_config": text})
    _, found = findings("--config", path)
    located = {finding["id"]: finding["location"] for finding in found}
    assert located["rope-base-bound"]["key"] == "text_config.rope_theta"  # the message names the context first
    assert located["rope-base-bound"]["line"] == line_of(path, "rope_theta", after="text_config")[0]


def test_escaping_of_paths_and_messages(tmp_path):
    folder = tmp_path / "odd,dir:50%"
    folder.mkdir()
    path = write(folder, {**SMALL, "rope_scaling": {"rope_type": "linear", "factor": 2.0, "a%b,c:d\ne\rf": 1}})
    code, out = invoke("--config", path, "--format", "github")
    assert code == 0 and len(out.splitlines()) == 1  # a newline in a key stays inside its one line
    assert "%25" in out and "%0A" in out and "%0D" in out
    head = out.split("::")[1]
    assert "odd%2Cdir%3A50%25" in head and "," not in head.split("file=")[1].split(",line=")[0]
    (line,) = parse_github(out)
    _, (finding,) = findings("--config", path)
    assert line["file"] == path and line["message"] == f"{finding['message']}\nfix: {finding['fix']}"
    assert "a%b,c:d\ne\rf" in line["message"]


def test_exit_status_and_empty_output(tmp_path):
    clean = write(tmp_path, SMALL)
    for output in ("github", "sarif", "text", "json"):
        assert invoke("--config", clean, "--format", output)[0] == 0
    assert invoke("--config", clean, "--format", "github")[1] == ""
    assert json.loads(invoke("--config", clean, "--format", "sarif")[1])["runs"][0]["results"] == []
    assert invoke("--config", clean, "--format", "json")[1] == invoke("--config", clean, "--json")[1]
    bad = write(tmp_path, PLANTED)
    assert {invoke("--config", bad, "--format", output)[0] for output in ("github", "sarif", "text", "json")} == {3}


@pytest.mark.parametrize("output", ["github", "sarif", "text"])
def test_json_with_another_format_is_refused(tmp_path, output):
    result = runner.invoke(app, ["doctor", "--config", write(tmp_path, SMALL), "--json", "--format", output])
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "--format" in result.stderr
    assert runner.invoke(app, ["doctor", "--config", write(tmp_path, SMALL), "--json", "--format", "json"]
                         ).exit_code == 0


def test_a_checkpoint_without_config_points_at_the_checkpoint_and_one_with_it_at_the_config(tmp_path):
    weights = save_safetensors(tmp_path / "model.safetensors", gpt2_tensors(rows=40))
    _, found = findings("--checkpoint", weights)
    assert [(f["id"], f["location"]) for f in found] == [
        ("no-config", {"path": weights, "line": 1, "column": 1, "key": None})]
    write_config(tmp_path, model_type="gpt2", n_positions=40, max_position_embeddings=64)
    code, out = invoke("--checkpoint", str(tmp_path), "--format", "github")
    (line,) = [line for line in parse_github(out) if line["title"] == "table-short"]
    text = open(tmp_path / "config.json").read()
    assert code == 3 and line["file"].endswith("config.json") and line["line"] == "1"
    assert int(line["col"]) == text.index('"max_position_embeddings"') + 1  # written on one line


def check_sarif(log: dict) -> None:
    """What SARIF 2.1.0's schema requires of each object doctor writes, field by field."""
    assert set(log) <= {"$schema", "version", "runs", "inlineExternalProperties", "properties"}
    assert log["version"] == "2.1.0" and isinstance(log["runs"], list)
    assert urlsplit(log["$schema"]).scheme == "https"
    for run in log["runs"]:
        driver = run["tool"]["driver"]  # run requires tool; tool requires driver; toolComponent requires name
        assert isinstance(driver["name"], str) and driver["name"]
        rules = driver.get("rules", [])
        for rule in rules:  # reportingDescriptor requires id; shortDescription is a multiformatMessageString
            assert isinstance(rule["id"], str) and isinstance(rule["shortDescription"]["text"], str)
        assert len({rule["id"] for rule in rules}) == len(rules)  # uniqueItems
        assert run.get("columnKind", "unicodeCodePoints") in ("utf16CodeUnits", "unicodeCodePoints")
        for result in run["results"]:
            assert isinstance(result["message"]["text"], str)  # result requires message; message text or id
            assert result["level"] in ("none", "note", "warning", "error")
            index = result.get("ruleIndex", -1)
            assert isinstance(index, int) and index >= -1
            if index >= 0:
                assert rules[index]["id"] == result["ruleId"]
            for location in result["locations"]:
                physical = location["physicalLocation"]
                uri = physical["artifactLocation"]["uri"]
                assert isinstance(uri, str) and uri == uri.strip() and " " not in uri  # a URI reference
                region = physical["region"]
                assert isinstance(region["startLine"], int) and region["startLine"] >= 1
                assert region.get("startColumn", 1) >= 1


def test_sarif_holds_the_findings_at_their_keys(tmp_path):
    path = write(tmp_path, PLANTED)
    code, out = invoke("--config", path, "--format", "sarif")
    _, expected = findings("--config", path)
    log = json.loads(out)
    check_sarif(log)
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "posemb" and driver["version"] == __version__
    assert [rule["id"] for rule in driver["rules"]] == list(dict.fromkeys(f["id"] for f in expected))
    assert all(rule["shortDescription"]["text"] == RULES[rule["id"]] for rule in driver["rules"])
    assert code == 3 and len(run["results"]) == len(expected)
    for result, finding in zip(run["results"], expected, strict=True):
        assert result["ruleId"] == finding["id"]
        assert result["level"] == {"error": "error", "warning": "warning", "info": "note"}[finding["severity"]]
        assert result["message"]["text"] == f"{finding['message']}\nfix: {finding['fix']}"
        (location,) = result["locations"]
        assert unquote(location["physicalLocation"]["artifactLocation"]["uri"]).endswith(path)
        region = location["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"]) == (finding["location"]["line"],
                                                                finding["location"]["column"])
    factor = next(r for r in run["results"] if r["ruleId"] == "factor-below-one")
    assert factor["locations"][0]["physicalLocation"]["region"]["startLine"] == line_of(path, "factor")[0]


def test_a_relative_path_stays_relative(tmp_path, monkeypatch):
    write(tmp_path, PLANTED)
    monkeypatch.chdir(tmp_path)
    _, out = invoke("--config", "config.json", "--format", "sarif")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(out)["runs"][0]
            ["results"]}
    assert uris == {"config.json"}
    _, found = findings("--config", str(tmp_path / "config.json"))  # under the working directory: made relative
    assert {finding["location"]["path"] for finding in found} == {"config.json"}


def test_every_rule_id_is_described():
    from pathlib import Path

    import posemb_cli.commands.doctor.examine as rules

    emitted = set()
    for source in Path(rules.__file__).parent.glob("*.py"):
        emitted |= set(re.findall(r'Finding\(\s*"([a-z0-9-]+)"', source.read_text(encoding="utf-8")))
    assert emitted and emitted <= set(RULES)


def test_a_finding_points_at_the_key_its_rule_sets_not_at_a_name_in_its_message(tmp_path):
    from posemb_cli.commands.doctor.locations import locate
    from posemb_cli.commands.doctor.report import DoctorReport, Finding

    path = write(tmp_path, PLANTED)
    said = "max_position_embeddings and rope_theta are named first; torch_dtype too"
    report = DoctorReport(source={"config": path}, findings=[
        Finding("x", "error", said, "fix", key="rope_scaling.factor"),
        Finding("y", "error", said, "fix", key="rope_scaling.beta_fast"),  # missing: the block it belongs in
        Finding("z", "error", said, "fix")])  # about no key: the file's first line
    located = [finding.location for finding in locate(report).findings]
    assert [(place.line, place.column) for place in located] == [line_of(path, "factor"),
                                                                 line_of(path, "rope_scaling"), (1, 1)]
    assert [place.key for place in located] == ["rope_scaling.factor", "rope_scaling", None]


def test_every_rule_sets_the_key_it_is_about(tmp_path):
    """Each finding of a config carries its key, and its location is that key or the object holding it."""
    configs = [PLANTED, {**SMALL, "max_position_embeddings": 32768, "rope_theta": 10000.0},
               {"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_positions": 128},
               {**SMALL, "hidden_size": 250}, {**SMALL, "partial_rotary_factor": 2.0},
               {**SMALL, "rope_theta": "ten", "rope_scaling": {"type": "linear", "rope_type": "dynamic",
                                                                "factor": 2.0}}]
    seen = set()
    for number, config in enumerate(configs):
        folder = tmp_path / str(number)
        folder.mkdir()
        path = write(folder, config)
        _, found = findings("--config", path)
        assert found
        from posemb_cli.commands.doctor.examine import run_doctor
        from posemb_cli.sources.naming.model_file import option_model

        keys = {(f.id, f.message): f.key for f in run_doctor(option_model("model_config", path)).findings}
        for finding in found:
            key = keys[finding["id"], finding["message"]]
            assert key is not None, finding["id"]
            where = finding["location"]["key"]
            assert where is not None and (key == where or key.startswith(where + ".")), (key, where)
            seen.add(finding["id"])
    assert {"no-rope", "rope-base-bound", "unknown-field", "missing-field", "factor-below-one",
            "low-precision-positions", "partial-rotary", "head-size", "rope-theta-missing",
            "rope-type-conflict"} <= seen
