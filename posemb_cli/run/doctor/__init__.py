"""`posemb doctor`: a linter for a model's position setup.

One module per group of rules: ``scaling_rules`` (the rope block),
``frequency_rules`` (rotary width, base bound, dtype), ``table_rules`` (a
learned table against its config). Each finding is ``{"id", "severity",
"message", "fix"}``; an error makes the command exit 3.
"""

from __future__ import annotations

import os

from posemb_cli.errors import PosembError
from posemb_cli.run.doctor.frequency_rules import frequency_findings
from posemb_cli.run.doctor.model import ModelFields
from posemb_cli.run.doctor.scaling_rules import scaling_findings
from posemb_cli.run.doctor.table_rules import table_findings
from posemb_cli.run.documents import DoctorReport, Finding
from posemb_cli.sources.tensor_files import read_json_object

__all__ = ["run_doctor"]


def _config_file(path: str, flag: str) -> str:
    file = os.path.join(path, "config.json") if os.path.isdir(path) else path
    if not os.path.isfile(file):
        raise PosembError(f"{flag} {path}: no such file" + (" (no config.json in the directory)"
                                                              if os.path.isdir(path) else ""))
    return file


def _config_findings(model: ModelFields) -> list[Finding]:
    found = scaling_findings(model) + frequency_findings(model)
    if not found and not model.has_rope:
        found.append(Finding("no-rope", "info", "the config describes no RoPE (no rope block, no rope_theta)",
                             "nothing to do for rotary positions"))
    return found


def run_doctor(*, config: str | None = None, checkpoint: str | None = None) -> DoctorReport:
    """Read a config (or a checkpoint and the config beside it) and apply every rule.

    Raises:
        PosembError: a file that cannot be read (exit 2), naming the flag.
    """
    if (config is None) == (checkpoint is None):
        raise PosembError("doctor needs exactly one of --config FILE or --checkpoint PATH")
    if config is not None:
        file = _config_file(config, "--config")
        model = ModelFields.of(file, read_json_object(file, "--config"))
        return DoctorReport(source={"config": file, "model_type": model.top.get("model_type")},
                            findings=_config_findings(model))
    from posemb_cli.sources.checkpoint import load_checkpoint

    assert checkpoint is not None  # exactly one of the two was given
    loaded = load_checkpoint(checkpoint)
    folder = checkpoint if os.path.isdir(checkpoint) else os.path.dirname(os.path.abspath(checkpoint))
    beside = os.path.join(folder, "config.json")
    beside_model = (ModelFields.of(beside, read_json_object(beside, "--checkpoint")) if os.path.isfile(beside)
                    else None)
    found = table_findings(beside_model, loaded.rows, loaded.position_offset, loaded.key)
    if beside_model is not None:
        found += [finding for finding in _config_findings(beside_model) if finding.id != "no-rope"]
    return DoctorReport(source={"checkpoint": checkpoint, "key": loaded.key, "rows": loaded.rows,
                                "position_offset": loaded.position_offset,
                                "config": beside if beside_model is not None else None}, findings=found)
