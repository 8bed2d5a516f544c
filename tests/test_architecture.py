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
