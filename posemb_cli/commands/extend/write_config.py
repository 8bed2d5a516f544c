"""``extend --write-config PATH``: a copy of the model's config.json with a candidate applied, as the runtime reads it.

The candidate is the one ``--scalings`` names where it names one, else the recommendation. The edit is
``config_edit.edit_config`` (what would override the candidate removed or replaced, the length fields set so
that transformers' validation is silent, no other key changed); the file is written whole or not at all (a
temporary file beside it, then renamed), and never over the model's own config.json.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError

if TYPE_CHECKING:
    from posemb_cli.commands.extend.report import ExtendReport

__all__ = ["check_target", "write_config"]


def check_target(path: str) -> None:
    """Refuse (exit 2) a path that cannot be written before anything runs: its folder must exist."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        raise PosembError(f"--write-config {path}: no folder {folder}; give a path in an existing folder")
    if os.path.isdir(path):
        raise PosembError(f"--write-config {path}: a folder; give the path of the config.json to write")


def write_config(report: ExtendReport, path: str) -> dict:
    """Write the edited config.json to ``path``; what was written (``written_config`` of the JSON document)."""
    from posemb_cli.commands.extend.config_edit import edit_config
    from posemb_cli.sources.bounds.json_limits import read_json_file

    source = report.source
    if source.get("kind") == "gguf" or source.get("format") == "gguf":
        raise PosembError(f"--write-config {path}: MODEL {source['model']} is a GGUF file, which holds no "
                          "config.json; llama.cpp takes the flags of recommendation.engines.llama_cpp instead")
    published = str(source["config"])
    if os.path.abspath(path) == os.path.abspath(published):
        raise PosembError(f"--write-config {path}: that is the model's own config.json; write the edited copy "
                          "elsewhere")
    names = report.scalings
    scaling = names[0] if len(names) == 1 else report.recommendation["scaling"]
    candidate = next(one for one in report.candidates if one.scaling == scaling)
    config = read_json_file(published, f"MODEL {source['model']} ({published})")
    if not isinstance(config, dict):
        raise PosembError(f"MODEL {source['model']} ({published}): not a JSON object")
    edit = edit_config(config, candidate.rope_parameters, report.to)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".config-", suffix=".json", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(edit.config, out, indent=2, ensure_ascii=False)
            out.write("\n")
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return {"path": path, "scaling": scaling, "from": published, **edit.to_dict()}
