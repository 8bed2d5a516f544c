"""Regenerate the example outputs of README.md and docs/walkthroughs.md from the tool itself.

    python docs/generate_examples.py           rewrite every example block in place
    python docs/generate_examples.py --check   exit 1 naming each block that differs from what the tool prints

An example is an HTML comment that names the command, right before the fenced block the script fills:

    <!-- example: posemb inspect --scheme sinusoidal --dim 32; from: Wavelength bands; to: turn a full circle -->
    ```
    $ posemb inspect --scheme sinusoidal --dim 32
    ...
    ```

Options follow the command, each after "; ":

- ``from: TEXT`` and ``to: TEXT``: keep the lines from the first holding TEXT to the next holding TEXT,
  with a "..." line where lines are cut;
- ``columns: N``: the terminal's width (80 by default; shown as ``COLUMNS=N`` before the command);
- ``setup: SHELL``: run first, unseen (to write a file the command reads); always the last option;
- ``slow``: a run of a minute or more, which the tests check only with POSEMB_SLOW_EXAMPLES=1.

A command runs under bash, ``posemb`` being this Python's ``-m posemb_cli`` (this checkout first on the
path), with NO_COLOR=1, COLUMNS fixed and no CUDA device visible (``--device auto`` is the CPU), in a
scratch folder holding the files of docs/example_files, the repository's examples/ and, where they exist,
the real GGUF files the tests use (POSEMB_REAL_MODELS); stdout is the output. An example naming a .gguf
file that is not there, or piping to jq where jq is not installed, is skipped (left as it is). Trailing
spaces are dropped from every line.

A Python example (``<!-- example: python -->`` before a ```python block) runs each ``>>>`` line in one
namespace, in such a folder, and writes the repr of each expression's value (or the exception) under it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTS = ("README.md", os.path.join("docs", "walkthroughs.md"))
FILES = os.path.join(ROOT, "docs", "example_files")
REAL_MODELS = os.environ.get("POSEMB_REAL_MODELS", os.path.expanduser("~/.cache/posemb-real-models"))
_BLOCK = re.compile(r"<!-- example: (?P<spec>.*?) -->\n```(?P<lang>\w*)\n(?P<body>.*?)^```$", re.S | re.M)
_ALLOWED_EXIT = (0, 3)  # doctor exits 3 when it finds an error


@dataclasses.dataclass(frozen=True, eq=False)
class Example:
    """One marked block: where it is, what runs, and the text it holds now."""

    document: str
    spec: str
    lang: str
    body: str
    command: str
    options: dict[str, str]

    @property
    def name(self) -> str:
        return f"{os.path.basename(self.document)}: {self.command}"

    @property
    def columns(self) -> int:
        return int(self.options.get("columns", "80"))

    def missing(self) -> str | None:
        """Why this example cannot run here (a real model file absent, jq not installed), or None."""
        for name in re.findall(r"[\w.-]+\.gguf", self.command):
            if not os.path.isfile(os.path.join(REAL_MODELS, name)):
                return f"{name} is not in {REAL_MODELS}"
        if re.search(r"\|\s*jq\b", self.command) and shutil.which("jq") is None:
            return "jq is not installed"
        return None


def examples(document: str) -> list[Example]:
    """The marked examples of one document (a path relative to the repository's root)."""
    with open(os.path.join(ROOT, document), encoding="utf-8") as handle:
        text = handle.read()
    found = []
    for match in _BLOCK.finditer(text):
        command, *rest = [part.strip() for part in match["spec"].split("; ")]
        options: dict[str, str] = {}
        for index, part in enumerate(rest):
            if part.startswith("setup: "):  # the last option: its shell may hold "; " itself
                options["setup"] = "; ".join(rest[index:])[len("setup: "):]
                break
            key, _, value = part.partition(": ")
            options[key] = value
        found.append(Example(document, match["spec"], match["lang"], match["body"], command, options))
    return found


@contextlib.contextmanager
def _scratch() -> Iterator[str]:
    """A folder holding links to the example files, to examples/ and to the real models that are here."""
    with tempfile.TemporaryDirectory(prefix="posemb-examples-") as folder:
        os.symlink(os.path.join(ROOT, "examples"), os.path.join(folder, "examples"))
        for source in (FILES, REAL_MODELS):
            if os.path.isdir(source):
                for name in os.listdir(source):
                    os.symlink(os.path.join(source, name), os.path.join(folder, name))
        yield folder


def _environment(columns: int) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "POSEMB_DEBUG")}
    path = env.get("PYTHONPATH")
    return {**env, "COLUMNS": str(columns), "LINES": "24", "NO_COLOR": "1", "PYTHON": sys.executable,
            "CUDA_VISIBLE_DEVICES": "",  # the same figures on any machine: --device auto is the CPU
            "PYTHONPATH": ROOT + (os.pathsep + path if path else "")}


def _excerpt(lines: list[str], options: dict[str, str]) -> list[str]:
    """The lines from ``from`` to ``to`` (both kept), "..." where lines before or after are cut."""
    start, stop = 0, len(lines)
    if "from" in options:
        start = next(i for i, line in enumerate(lines) if options["from"] in line)
    if "to" in options:
        stop = next(i for i, line in enumerate(lines) if i >= start and options["to"] in line) + 1
    return (["..."] if start > 0 else []) + lines[start:stop] + (["..."] if stop < len(lines) else [])


def _shell(example: Example) -> str:
    with _scratch() as folder:
        script = "\n".join(['posemb() { "$PYTHON" -m posemb_cli "$@"; }', 'python() { "$PYTHON" "$@"; }',
                            "set -o pipefail", example.options.get("setup", ""), example.command])
        done = subprocess.run(["bash", "-c", script], cwd=folder, env=_environment(example.columns),
                              capture_output=True, text=True, check=False)
    if done.returncode not in _ALLOWED_EXIT:
        raise RuntimeError(f"{example.name}: exit {done.returncode}: {done.stderr.strip()[-2000:]}")
    shown = ("" if example.columns == 80 else f"COLUMNS={example.columns} ") + example.command
    lines = [line.rstrip() for line in done.stdout.rstrip("\n").splitlines()]
    return "\n".join([f"$ {shown}", *_excerpt(lines, example.options)]) + "\n"


def _python(example: Example) -> str:
    """Each ``>>>`` line run in one namespace; under it, the repr of its value or the exception's last line."""
    if ROOT not in sys.path:  # run as a script: this checkout's posemb_cli
        sys.path.insert(0, ROOT)
    statements = [line[4:] for line in example.body.splitlines() if line.startswith(">>> ")]
    out: list[str] = []
    namespace: dict = {}
    with _scratch() as folder:
        here = os.getcwd()
        os.chdir(folder)
        try:
            for statement in statements:
                out.append(f">>> {statement}")
                try:
                    with contextlib.redirect_stdout(io.StringIO()) as printed:
                        try:
                            value = eval(compile(statement, "<example>", "eval"), namespace)  # noqa: S307
                        except SyntaxError:
                            exec(compile(statement, "<example>", "exec"), namespace)  # noqa: S102
                            value = None
                    out += printed.getvalue().rstrip("\n").splitlines()
                    if value is not None:
                        out.append(repr(value))
                except Exception as exc:  # the line a traceback ends with
                    out.append(f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}")
        finally:
            os.chdir(here)
    return "\n".join(out) + "\n"


def generated(example: Example) -> str:
    """What the block should hold: the command and its output (or the Python session), as the tool prints it."""
    return _python(example) if example.command == "python" else _shell(example)


def every_example() -> list[Example]:
    return [example for document in DOCUMENTS for example in examples(document)]


def regenerate(*, check: bool, slow: bool = True) -> list[str]:
    """Rewrite (or, with ``check``, compare) every block; the names of the blocks that differ(ed)."""
    todo = [example for example in every_example()
            if example.missing() is None and (slow or "slow" not in example.options)]
    shell = [example for example in todo if example.command != "python"]
    with ThreadPoolExecutor(max_workers=2) as pool:  # each command is its own process
        outputs = dict(zip(shell, pool.map(generated, shell), strict=True))
    outputs.update({example: generated(example) for example in todo if example.command == "python"})
    changed = [example.name for example, body in outputs.items() if body != example.body]
    if not check:
        for document in DOCUMENTS:
            path = os.path.join(ROOT, document)
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            for example, body in outputs.items():
                if example.document == document:
                    old = f"<!-- example: {example.spec} -->\n```{example.lang}\n{example.body}```"
                    text = text.replace(old, f"<!-- example: {example.spec} -->\n```{example.lang}\n{body}```")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
    return changed


def main(argv: list[str]) -> int:
    check = "--check" in argv
    for example in every_example():
        why = example.missing()
        if why is not None:
            print(f"skipped {example.name}: {why}", file=sys.stderr)
    changed = regenerate(check=check)
    for name in changed:
        print(("differs: " if check else "rewritten: ") + name, file=sys.stderr)
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
