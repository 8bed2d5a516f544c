"""`posemb doctor`: a linter for a model's position setup, run on the model's one reading.

The model is read like every other command reads it (``sources.read_model``: a
config.json, a GGUF header, or the config beside a checkpoint's weights), leniently,
so that what a loader would refuse or ignore becomes a finding instead of a refusal.
The rules run per RoPE set: ``scaling_rules`` (the rope block), ``frequency_rules``
(rotary width, base bound against the distances its layers attend over, dtype), and
``table_rules`` (a learned table against its config). Each finding is ``{"id",
"severity", "message", "fix"}``; an error makes the command exit 3.
"""

from __future__ import annotations

from posemb_cli.commands.doctor.frequency_rules import frequency_findings
from posemb_cli.commands.doctor.report import DoctorReport, Finding
from posemb_cli.commands.doctor.scaling_rules import scaling_findings
from posemb_cli.commands.doctor.subject import Subject, subjects
from posemb_cli.commands.doctor.table_rules import table_findings
from posemb_cli.sources.model.reading import ModelReading
from posemb_cli.sources.naming.model_file import ModelFile

__all__ = ["run_doctor"]


def _config_findings(reading: ModelReading) -> list[Finding]:
    found: list[Finding] = []
    checked = subjects(reading)
    if reading.kind.kind == "rope" and not checked:  # a RoPE model whose blocks could not be told apart
        checked = [Subject(reading, None)]
    for subject in checked:
        found += scaling_findings(subject) + frequency_findings(subject)
    unique = list({(f.id, f.message): f for f in found}.values())  # a shared field is found once, not per set
    if not unique and reading.kind.kind != "rope":
        unique.append(Finding("no-rope", "info", f"the model uses {reading.kind.label} ({reading.kind.decided_by}), "
                                                 "no RoPE", "nothing to do for rotary positions", key=reading.kind.key))
    return unique


def _source(reading: ModelReading) -> dict:
    return {"config": reading.path, "model_type": reading.model_type, "read_from": reading.read_from,
            "layer_groups": reading.model_dict()["layer_groups"], "rules": list(reading.rules)}


def run_doctor(model: ModelFile) -> DoctorReport:
    """Read a model (a config, a GGUF file, or a checkpoint and the config beside it) and apply every rule.

    Raises:
        FileError: a file that cannot be read (exit 2).
    """
    from posemb_cli.sources.naming.read import read_checkpoint_model, read_model

    if not model.has_weights:
        reading = read_model(model.path, lenient=True)
        return DoctorReport(source=_source(reading), findings=_config_findings(reading))
    from posemb_cli.run.models.real_sources import OFFSET_FLAG
    from posemb_cli.sources.weights.position_table import load_checkpoint, model_kind_of
    from posemb_cli.sources.weights.tensor_files import open_tensor_file

    checkpoint = model.path
    tensors = open_tensor_file(checkpoint)
    kind = model_kind_of(tensors)
    beside = read_checkpoint_model(tensors, checkpoint, lenient=True)
    source: dict = {"checkpoint": checkpoint, "config": beside.path if beside is not None else None}
    found: list[Finding] = []
    if kind is None or kind.kind in ("learned", "sinusoidal"):  # a table in the weights: check it against the config
        loaded = load_checkpoint(checkpoint, tensors=tensors, kind=kind, offset_given_as=OFFSET_FLAG)
        source.update(key=loaded.key, rows=loaded.rows, position_offset=loaded.position_offset)
        found = table_findings(beside, loaded.rows, loaded.position_offset, loaded.key)
    if beside is not None:
        source.update({key: value for key, value in _source(beside).items() if key != "config"})
        found += [finding for finding in _config_findings(beside) if finding.id != "no-rope"]
    return DoctorReport(source=source, findings=found)
