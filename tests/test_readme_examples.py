"""The example outputs of README.md and docs/walkthroughs.md are the tool's own: each marked block is rerun and
compared (docs/generate_examples.py rewrites them). Examples on the real GGUF files run where those files are;
a run of a minute or more runs with POSEMB_SLOW_EXAMPLES=1; the Quick start's install commands never run."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("generate_examples", os.path.join(ROOT, "docs", "generate_examples.py"))
assert _spec is not None and _spec.loader is not None
examples = importlib.util.module_from_spec(_spec)
sys.modules["generate_examples"] = examples  # its dataclass looks its module up while it is built
_spec.loader.exec_module(examples)

EVERY = examples.every_example()
SLOW = os.environ.get("POSEMB_SLOW_EXAMPLES") == "1"


def _skip_reason(example) -> str | None:
    if "slow" in example.options and not SLOW:
        return "a slow example: POSEMB_SLOW_EXAMPLES=1 runs it"
    return example.missing()


@pytest.fixture(scope="module")
def printed() -> dict:
    """What the tool prints for each runnable example, two commands at a time."""
    shell = [example for example in EVERY if _skip_reason(example) is None and example.command != "python"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(shell, pool.map(examples.generated, shell), strict=True))


@pytest.mark.parametrize("example", EVERY, ids=[example.name for example in EVERY])
def test_each_example_is_what_the_tool_prints(example, printed):
    why = _skip_reason(example)
    if why is not None:
        pytest.skip(why)
    now = printed[example] if example in printed else examples.generated(example)
    assert now == example.body, f"{example.name}: run python docs/generate_examples.py and read the diff"


def test_there_are_examples_in_both_documents():
    documents = {example.document for example in EVERY}
    assert documents == set(examples.DOCUMENTS)
    assert any(example.command.startswith("posemb compare") for example in EVERY if example.document == "README.md")


@pytest.mark.parametrize("document", examples.DOCUMENTS)
def test_every_printed_output_is_a_marked_example(document):
    """A block that shows a command's output (a line starting with "$ " or ">>> ") follows an example comment."""
    with open(os.path.join(ROOT, document), encoding="utf-8") as handle:
        text = handle.read()
    for match in re.finditer(r"(?P<before>[^\n]*)\n```\w*\n(?P<body>.*?)^```$", text, re.S | re.M):
        first = match["body"].split("\n", 1)[0]
        if first.startswith(("$ ", ">>> ")):
            assert match["before"].startswith("<!-- example: "), f"{document}: unmarked output: {first}"


def test_quick_start_stays_as_ci_runs_it():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "pip install torch==2.13.0 && pip install . && posemb compare --dim 64 --ctx 512" in quick
    assert "pip install torch==2.13.0 && pip install -e '.[test]' && python -m pytest" in quick
    assert "<!-- example:" not in quick


def test_the_excerpt_rule():
    lines = ["a", "b title", "c", "d end", "e"]
    assert examples._excerpt(lines, {"from": "title", "to": "end"}) == ["...", "b title", "c", "d end", "..."]
    assert examples._excerpt(lines, {}) == lines
    assert examples._excerpt(lines, {"to": "c"}) == ["a", "b title", "c", "..."]


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_to_a_walkthrough_lands_on_a_heading():
    headings = {}
    for document in examples.DOCUMENTS:
        with open(os.path.join(ROOT, document), encoding="utf-8") as handle:
            headings[document] = {_slug(line.lstrip("#")) for line in handle if line.startswith("#")}
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    links = re.findall(r"\]\((docs/walkthroughs\.md)?#([\w-]+)\)", readme)
    assert len(links) > 10
    for target, anchor in links:
        assert anchor in headings[target or "README.md"], anchor
