"""Where each doctor finding points: the file it is about, and the line of the config key it is about.

Every rule sets the key its finding is about (``Finding.key``), labelled as the reading labels
it (``rope_scaling.factor``, ``text_config.rope_parameters.rope_theta``). A finding points at that
key where the file holds it; where the file lacks it (a missing key), at the nearest object it
belongs in that the file holds; else, and for a finding about no key, at line 1. A GGUF file
(binary) and a checkpoint are pointed at whole, line 1. Paths under the working directory are
given relative to it, as CI annotations want them.
"""

from __future__ import annotations

import dataclasses
import os

from posemb_cli.commands.doctor.key_lines import KeyPlace, key_places
from posemb_cli.commands.doctor.report import DoctorReport, Finding, Location
from posemb_cli.sources.bounds.limits import MAX_JSON_BYTES

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


def _key(finding: Finding, places: dict[str, KeyPlace]) -> str | None:
    """The key the finding is about where the file holds it, else the nearest object holding it, else None."""
    if finding.key is None:
        return None
    return next((held for held in _self_or_parents(finding.key) if held in places), None)


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
