"""The help path imports no torch: `posemb --help`, `--version` and every subcommand's `--help`.

Each case runs in a fresh interpreter (this test process has torch loaded already)
and reports ``sys.modules`` after the CLI has answered.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import contextlib, io, json, sys
sys.argv = ["posemb", *json.loads(sys.argv[1])]
from posemb_cli.cli.app import app, main
shown = io.StringIO()
code = 0
try:
    with contextlib.redirect_stdout(shown):
        main()
except SystemExit as exc:
    code = exc.code
heavy = sorted(name for name in ("torch", "numpy") if name in sys.modules)
sys.stderr.write(json.dumps({"code": code, "heavy": heavy, "shown": shown.getvalue()}) + "\\n")
"""

COMMANDS = """
import json, sys
import typer
from posemb_cli.cli.app import app
print(json.dumps(sorted(typer.main.get_command(app).commands)))
"""


def probe(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True,
                          timeout=60)
    return json.loads(done.stderr.strip().splitlines()[-1])


def subcommands() -> list[str]:
    done = subprocess.run([sys.executable, "-c", COMMANDS], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def test_every_documented_command_is_registered():
    assert set(subcommands()) == {"compare", "inspect", "order", "bench", "sweep", "schema", "precision", "padding",
                                 "doctor", "heads", "extend"}


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"], []])
def test_root_help_and_version_import_no_torch(args):
    report = probe(args)
    assert report["code"] == 0
    assert report["shown"].strip()
    assert report["heavy"] == [], f"posemb {' '.join(args)} imported {report['heavy']}"


def test_every_subcommand_help_imports_no_torch():
    names = subcommands()
    for name in names:
        report = probe([name, "--help"])
        assert report["code"] == 0, name
        assert "Usage" in report["shown"], name
        assert "torch" not in report["heavy"], f"posemb {name} --help imported torch"


@pytest.mark.parametrize("args", [["schema", "inspect"], ["schema", "nope"]])
def test_schema_command_imports_no_torch(args):
    report = probe(args)
    assert report["heavy"] == [], f"posemb {' '.join(args)} imported {report['heavy']}"
    if args[1] == "inspect":
        assert report["code"] == 0 and json.loads(report["shown"])["title"] == "posemb.inspect/1"
    else:
        assert report["code"] == 2 and report["shown"] == ""


def test_python_dash_m_help_imports_no_torch():
    code = "\n".join([
        "import runpy, sys",
        "sys.argv = ['posemb', '--help']",
        "try:",
        "    runpy.run_module('posemb_cli', run_name='__main__')",
        "except SystemExit:",
        "    pass",
        "print('torch' in sys.modules, file=sys.stderr)",
    ])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "Usage" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "False"


@pytest.mark.parametrize("args", [["compare", "--dim", "0"], ["inspect", "--ctx", "1", "--json"],
                                  ["precision", "--scheme", "bogus"], ["padding", "--pad", "0"]])
def test_a_bad_flag_is_refused_without_torch(args):
    report = probe(args)
    assert report["code"] == 2, report
    assert "torch" not in report["heavy"], f"posemb {' '.join(args)} imported torch before refusing"


LOADED = """
import contextlib, io, json, sys
sys.argv = ["posemb", *json.loads(sys.argv[1])]
from posemb_cli.cli.app import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
sys.stderr.write(json.dumps(sorted(name for name in sys.modules if name.startswith("posemb_cli"))) + "\\n")
"""


def loaded(args: list[str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", LOADED, json.dumps(args)], capture_output=True, text=True,
                          timeout=120)
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_root_help_loads_a_handful_of_modules_and_no_command():
    modules = loaded(["--help"])
    assert len(modules) <= 12, modules
    assert not any(name.startswith(("posemb_cli.cli.commands.", "posemb_cli.commands.")) for name in modules)


@pytest.mark.parametrize("name", ["order", "extend", "doctor", "schema"])
def test_a_command_loads_no_other_commands_module(name):
    from posemb_cli.cli.app import SHORT_HELP

    modules = loaded([name, "--help"])
    others = [module for module in modules for prefix in ("posemb_cli.cli.commands.", "posemb_cli.commands.")
              if module.startswith(prefix) and module[len(prefix):].split(".")[0] in set(SHORT_HELP) - {name}]
    assert others == [], others


def test_compare_of_real_models_loads_no_other_commands_folder():
    """Each column of ``compare MODEL MODEL`` is inspect's core, reached below the commands (``request.model``,
    ``run.models``), not through inspect's folder."""
    from pathlib import Path

    published = Path(__file__).resolve().parents[1] / "sources" / "published"
    modules = loaded(["compare", str(published / "llama-2-7b.json"), str(published / "mistral-7b-v0.1.json"),
                      "--json", "--device", "cpu"])
    assert "posemb_cli.commands.compare.models" in modules  # it ran
    others = sorted({name.split(".")[2] for name in modules if name.startswith("posemb_cli.commands.")} - {"compare"})
    assert others == [], others


def test_inspect_refuses_a_config_before_torch(tmp_path):
    """inspect measures tensors (in the dtype, on the device asked for), so a config it runs loads torch; a config it
    refuses costs none."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 3,
                                "max_position_embeddings": 2048}))
    report = probe(["inspect", str(path)])
    assert report["code"] == 2 and report["shown"] == ""
    assert "torch" not in report["heavy"]
