"""Where each doctor finding points: the file it is about, and the line of the config key it names.

Every rule names the keys it is about in its message, labelled as the reading labels
them (``rope_scaling.factor``, ``text_config.rope_parameters.rope_theta``). A finding
points at the first key its message names that the file holds; where a rule's message
names several, at the one the rule is about (``_ABOUT``); where it names a key the file
lacks (a missing key), at the object it belongs in; else at line 1. A GGUF file (binary)
and a checkpoint are pointed at whole, line 1. Paths under the working directory are
given relative to it, as CI annotations want them.
"""

from __future__ import annotations

import dataclasses
import os
import re

from posemb_cli.commands.doctor.key_lines import KeyPlace, key_places
from posemb_cli.commands.doctor.report import DoctorReport, Finding, Location
from posemb_cli.sources.bounds.limits import MAX_JSON_BYTES

_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*")
_ABOUT = {  # the key a rule is about, by its last name, where its message names others first
    "rope-base-bound": ("rope_theta", "rotary_emb_base"),
    "rope-theta-missing": ("rope_theta", "rotary_emb_base"),
    "low-precision-positions": ("torch_dtype", "dtype"),
}

__all__ = ["locate", "shown_path"]


def shown_path(path: str) -> str:
    """``path`` relative to the working directory when it lies under it, else as given."""
    if not os.path.isabs(path):
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


def _places(config: str) -> dict[str, KeyPlace]:
    if config.lower().endswith(".gguf"):
        return {}
    try:
        if os.path.getsize(config) > MAX_JSON_BYTES:
            return {}
        with open(config, encoding="utf-8-sig", errors="replace") as handle:
            return key_places(handle.read())
    except OSError:  # read before, gone now: the findings still stand, pointed at the file
        return {}


def _named(text: str) -> list[str]:
    """The key-like names in a message, in order: dotted or with an underscore (plain words are not keys)."""
    return [name for name in _NAMES.findall(text) if "." in name or "_" in name]


def _key(finding: Finding, places: dict[str, KeyPlace]) -> str | None:
    named = _named(finding.message)
    about = _ABOUT.get(finding.id, ())
    pick = next((name for name in named if name in places and name.rsplit(".", 1)[-1] in about), None)
    if pick is None and about and not any(name.rsplit(".", 1)[-1] in about for name in named):
        # the message does not name it: the deepest such key (the model's own object before the top level)
        pick = max((key for key in places if key.rsplit(".", 1)[-1] in about), key=lambda key: key.count("."),
                   default=None)
    # else the first key named that the file holds, or the object a missing one belongs in
    return pick or next((held for name in named for held in _self_or_parents(name) if held in places), None)


def _self_or_parents(name: str):
    """``a.b.c`` gives itself, then ``a.b``, then ``a``."""
    yield name
    while "." in name:
        name = name.rsplit(".", 1)[0]
        yield name


def locate(report: DoctorReport) -> DoctorReport:
    """The report with every finding located in the config (or, with none, the checkpoint) it was read from."""
    config, checkpoint = report.source.get("config"), report.source.get("checkpoint")
    target = config if config is not None else checkpoint
    if target is None:
        return report
    places = _places(config) if config is not None else {}
    path = shown_path(target)
    located = []
    for finding in report.findings:
        key = _key(finding, places)
        place = places[key] if key is not None else KeyPlace(1, 1)
        located.append(dataclasses.replace(finding, location=Location(path, place.line, place.column, key)))
    return dataclasses.replace(report, findings=located)
