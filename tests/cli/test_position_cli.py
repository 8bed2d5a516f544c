"""The RoPE/ALiBi/NoPE flags through the CLI: JSON keys, Rich output, and refusals of bad values."""

import io
import json
import subprocess
import sys

import pytest
from posemb_cli.cli.app import app
from rich.console import Console
from typer.testing import CliRunner

runner = CliRunner()
SMALL = ["--dim", "16", "--ctx", "64", "--vocab", "40", "-b", "2", "-t", "8", "-k", "3", "--device", "cpu"]
ALL = "learned,sinusoidal,rope,alibi,none"


def test_compare_json_carries_the_new_keys_for_every_scheme():
    result = runner.invoke(app, ["compare", "--schemes", ALL, *SMALL, "--heads", "4", "--rope-scaling", "llama3",
                                 "--rope-factor", "4", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    config = doc["config"]
    for key, value in {"head_dim": 16, "rope_layout": "interleaved", "rope_scaling": "llama3", "rope_factor": 4.0,
                       "original_ctx": 16, "beta_fast": 32.0, "beta_slow": 1.0, "low_freq_factor": 1.0,
                       "high_freq_factor": 4.0, "attention_factor": None, "heads": 4}.items():
        assert config[key] == value, key
    entries = {entry["scheme"]: entry for entry in doc["schemes"]}
    assert list(entries) == ALL.split(",")
    for name, entry in entries.items():
        assert set(entry["scorecard"]) == {"uniqueness", "boundedness", "relative", "extrapolation", "determinism"}
        assert isinstance(entry["relative_deviation"], float)
        assert entry["acts_on"]
    for name in ("sinusoidal", "rope"):
        assert [set(p) for p in entries[name]["long_term_decay"]] == [{"distance", "bound"}] * len(
            entries[name]["long_term_decay"])
    assert set(entries["rope"]["bands"][0]) == {"pair", "inv_freq", "wavelength", "inv_freq_unscaled"}
    assert set(entries["sinusoidal"]["bands"][0]) == {"pair", "inv_freq", "wavelength"}
    assert entries["rope"]["attention_factor"] == 1.0
    assert len(entries["alibi"]["slopes"]) == 4
    assert "slopes" not in entries["rope"]
    for name in ("learned", "alibi", "none"):  # docs/json-contract.md: every scheme has it; null without frequencies
        assert "long_term_decay" in entries[name] and entries[name]["long_term_decay"] is None, name
    assert entries["none"]["neighbour_similarity"][0]["mean"] is None  # no signal: no cosine, written as null


def test_inspect_and_compare_agree_on_one_scheme():
    inspect = runner.invoke(app, ["inspect", "--scheme", "rope", *SMALL, "--rope-layout", "half", "--json"])
    compare = runner.invoke(app, ["compare", "--schemes", "rope", *SMALL, "--rope-layout", "half", "--json"])
    assert inspect.exit_code == 0 and compare.exit_code == 0, inspect.output + compare.output
    one, (entry,) = json.loads(inspect.stdout), json.loads(compare.stdout)["schemes"]
    for key in ("scorecard", "relative_deviation", "long_term_decay", "bands", "neighbour_similarity"):
        assert one[key] == entry[key], key


def test_rich_output_shows_scorecard_curve_and_bars():
    from posemb_cli.render.documents import render_compare, render_inspect
    from posemb_cli.run.analysis import compare, inspect
    from posemb_cli.run.config import make_config, with_position_settings

    config = make_config(dim=16, ctx=64, vocab=40, batch=2, seq_len=8, max_offset=3, device="cpu")
    config = with_position_settings(config, schemes=tuple(ALL.split(",")), heads=4, rope_scaling="yarn",
                                    rope_factor=2.0)
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(render_inspect(inspect(config, "rope")))
    console.print(render_inspect(inspect(config, "alibi")))
    console.print(render_compare(compare(config, tuple(ALL.split(",")))))
    text = console.file.getvalue()
    for piece in ("Scorecard", "Long-term decay", "unscaled", "pairs turn a full circle within ctx=64",
                  "ALiBi: the bias each head adds by distance",
                  "ALiBi: how far each head sees", "attention factor 1.069", "✓ pass", "n/a¹",
                  "How each property was measured",
                  "max|q·k−f(m−n)|", "Neighbour similarity and similarity heatmap: left out for alibi"):
        assert piece in text, piece


BAD = [
    (["compare", "--schemes", "rope", "--rope-factor", "0.5"], "--rope-factor"),
    (["compare", "--schemes", "rope", "--rope-factor", "nan", "--rope-scaling", "linear"], "--rope-factor"),
    (["inspect", "--scheme", "rope", "--head-dim", "7"], "--head-dim 7"),
    (["inspect", "--scheme", "rope", "--head-dim", "24"], "--head-dim 24"),
    (["inspect", "--scheme", "rope", "--head-dim", "0"], "--head-dim"),
    (["inspect", "--scheme", "alibi", "--heads", "5"], "--heads 5"),
    (["inspect", "--scheme", "alibi", "--heads", "0"], "--heads"),
    (["inspect", "--scheme", "rope", "--rope-scaling", "yarn", "--rope-factor", "2", "--original-ctx", "1024"],
     "--original-ctx 1024"),
    (["inspect", "--scheme", "rope", "--rope-scaling", "wide"], "--rope-scaling"),
    (["inspect", "--scheme", "rope", "--rope-layout", "diagonal"], "--rope-layout"),
    (["inspect", "--scheme", "rope", "--rope-scaling", "yarn", "--beta-fast", "1", "--beta-slow", "2"],
     "--beta-fast"),
    (["inspect", "--scheme", "rope", "--low-freq-factor", "4", "--high-freq-factor", "1"], "--high-freq-factor"),
    (["inspect", "--scheme", "rope", "--attention-factor", "0"], "--attention-factor"),
    (["inspect", "--scheme", "rope", "--rope-factor", "2"], "--rope-factor"),
    (["order", "--schemes", "none,nope"], "--schemes"),
    (["order", "--schemes", "rope", "--head-dim", "3"], "--head-dim 3"),
]


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
@pytest.mark.parametrize("args,flag", BAD)
def test_bad_values_exit_2_with_one_line(args, flag, json_flag):
    result = runner.invoke(app, [*args, *json_flag])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("posemb: error: ")
    assert flag in result.stderr
    assert "Traceback" not in result.output


def test_original_ctx_above_ctx_is_fine_where_it_does_not_matter():
    result = runner.invoke(app, ["inspect", "--scheme", "rope", *SMALL, "--original-ctx", "1000", "--json"])
    assert result.exit_code == 0, result.output


def test_order_help_imports_no_torch():
    probe = ("import sys; sys.argv=['posemb','order','--help']\n"
             "from posemb_cli.cli.app import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "sys.stderr.write(str('torch' in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stderr.strip().endswith("False")
    assert "--rope-scaling" in done.stdout and "--heads" in done.stdout


@pytest.mark.parametrize("kind", ["linear", "ntk", "dynamic", "yarn", "llama3"])
@pytest.mark.parametrize("command", [["inspect", "--scheme", "rope"], ["compare", "--schemes", "rope"],
                                     ["order", "--schemes", "rope"], ["padding", "--schemes", "rope"],
                                     ["precision", "--scheme", "rope"]])
def test_a_scaling_needs_its_factor(command, kind):
    """transformers requires a factor for every scaling; a factor left to its default 1 would be none at all."""
    result = runner.invoke(app, [*command, "--rope-scaling", kind, "--json"])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == f"posemb: error: --rope-scaling {kind} needs --rope-factor (the context extension " \
                            "factor, 1 or more, e.g. --rope-factor 4)\n"
    sizes = {"inspect": ["--seq-len", "8", "-k", "2"], "compare": ["--seq-len", "8", "-k", "2"],
             "order": ["--seq-len", "8"], "padding": ["--seq-len", "8"], "precision": []}[command[0]]
    given = runner.invoke(app, [*command, "--rope-scaling", kind, "--rope-factor", "1", "--dim", "16", "--ctx", "64",
                                *sizes, "--json"])
    assert given.exit_code == 0, given.output  # given, even as 1, it is the user's factor
