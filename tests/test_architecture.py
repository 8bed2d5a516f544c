"""The package's shape: layers import one way, no cycles, few modules at the top."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "posemb_cli"


def test_import_linter_contracts_are_kept():
    """The layers of pyproject.toml's import-linter contracts, and no cycles between siblings."""
    done = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports; "
                           "raise SystemExit(lint_imports())"],
                          cwd=PACKAGE.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout and done.stdout.count("KEPT") >= 2, done.stdout


def test_at_most_four_modules_beside_init_and_main():
    top = sorted(path.name for path in PACKAGE.glob("*.py") if path.name not in ("__init__.py", "__main__.py"))
    assert len(top) <= 4, top


def test_layers_are_packages():
    for layer in ("core", "measures", "sources", "run", "render", "cli"):
        assert (PACKAGE / layer / "__init__.py").is_file(), layer


def test_every_module_is_named_in_the_architecture_document():
    """docs/architecture.md names each module in its layer's row, so a newcomer finds where a module belongs."""
    import re

    document = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(" `/.py"): line for line in document.splitlines() if line.startswith("| `")}
    for path in PACKAGE.rglob("*.py"):
        if path.stem == "__init__":
            continue
        parts = path.relative_to(PACKAGE).parts
        layer = parts[0].removesuffix(".py")
        assert layer in rows, f"{layer} has no row in docs/architecture.md"
        assert re.search(rf"`{path.stem}`", rows[layer]), f"{path} is not named in the {layer} row"


def test_every_sources_module_sits_in_a_subpackage_the_document_names():
    """sources/ shows the design: each module in a format's or a concept's subpackage, named in its row."""
    import re

    document = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    row = next(line for line in document.splitlines() if line.startswith("| `sources/`"))
    for path in (PACKAGE / "sources").rglob("*.py"):
        parts = path.relative_to(PACKAGE / "sources").parts
        if parts == ("__init__.py",):
            continue
        assert len(parts) == 2, f"{path} is not in a subpackage of sources/ (one level deep)"
        subpackage = parts[0]
        assert (PACKAGE / "sources" / subpackage / "__init__.py").is_file(), subpackage
        assert f"`{subpackage}/`" in row, f"sources/{subpackage}/ is not named in docs/architecture.md"
        if path.stem != "__init__":
            section = row[row.index(f"`{subpackage}/`"):]
            section = section[:min((section.index(f"`{other}/`") for other in re.findall(r"`(\w+)/`", section)[1:]),
                                   default=len(section))]
            assert f"`{path.stem}`" in section, f"{path} is not named under sources/{subpackage}/"


# Modules below the request whose strings name another program's options, not posemb's: llama.cpp's command line
# (the engine's arguments posemb translates) and the Hugging Face CLI's download advice.
_OTHER_PROGRAMS = {"runtime/llama_cpp_backend/flags.py", "sources/naming/hf_cache.py"}


def _posemb_flags() -> set[str]:
    from importlib import import_module

    names = [path.name for path in (PACKAGE / "commands").iterdir() if (path / "options.py").is_file()]
    return {flag for name in names for option in import_module(f"posemb_cli.commands.{name}.options").OPTIONS
            for flag in option.flags if flag.startswith("--")}


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module, its docstrings left out (they may say which option reaches a value)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    documented = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documented]


def test_no_layer_below_the_request_names_a_flag():
    """sources, runtime, measures and core speak of keys, paths and values; the layer that knows how the user gave
    the request names its options (``request.words``, or words handed down as arguments)."""
    import re

    flags = _posemb_flags()
    assert {"--ctx", "--full", "--position-offset", "--checkpoint", "--config", "--ids"} <= flags
    pattern = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
    found = []
    for layer in ("sources", "runtime", "measures", "core"):
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            if str(path.relative_to(PACKAGE)) in _OTHER_PROGRAMS:
                continue
            found += [f"{path.relative_to(PACKAGE)}:{line}: {text!r}" for line, text in _strings(path)
                      for flag in pattern.findall(text) if flag in flags]
    assert found == [], "\n".join(found)
