"""`posemb doctor` for people, and for CI: the findings as a table, as GitHub annotations, or as SARIF.

For people: one row per finding, errors first, and a verdict line. Where the table
does not fit the width whole (a field name is one long word), each finding is a
block of lines instead: severity and id, the finding, the fix.

For CI, each finding at its location (``Finding.location``): ``github_annotations``
writes GitHub Actions workflow commands (``::error file=F,line=N,col=M,title=ID::...``),
``sarif_log`` a SARIF 2.1.0 log (GitHub code scanning and other viewers read it).
"""

from __future__ import annotations

from urllib.parse import quote

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from posemb_cli.commands.doctor.catalogue import describe
from posemb_cli.commands.doctor.report import SEVERITIES, DoctorReport, Finding, Location
from posemb_cli.render.fit import Fitted
from posemb_cli.render.source import resolved_text
from posemb_cli.run.documents import shows

_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_GITHUB_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}
_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

__all__ = ["SARIF_SCHEMA", "github_annotations", "render_doctor", "sarif_log"]


@shows(DoctorReport)
def render_doctor(report: DoctorReport) -> Group:
    read = report.source.get("checkpoint") or report.source.get("config")
    resolved = report.source.get("resolved")
    source = read if resolved is None else resolved["name"]  # MODEL as typed; the file read on the next line
    findings = sorted(report.findings, key=lambda finding: SEVERITIES.index(finding.severity))
    counts = {severity: sum(finding.severity == severity for finding in findings) for severity in SEVERITIES}
    verdict = Text(f"posemb doctor {source}: ", style="bold")
    verdict.append(", ".join(f"{count} {severity}{'s' if count != 1 else ''}" for severity, count in counts.items()),
                   style="bold red" if counts["error"] else "green")
    head = [verdict, *(line for line in (resolved_text(report.source, file=read),) if line is not None)]
    if not findings:
        return Group(*head, Text("No findings: the position setup is consistent.", style="green"))
    return Group(*head, Fitted(lambda: _table(findings), lambda: _blocks(findings)))


def _table(findings: list) -> Table:
    table = Table(show_lines=True)
    for name in ("severity", "id", "finding", "fix"):
        table.add_column(name, no_wrap=name in ("severity", "id"))
    for finding in findings:
        table.add_row(Text(finding.severity, style=_STYLES[finding.severity]), finding.id, finding.message,
                      finding.fix)
    return table


def _blocks(findings: list) -> Group:
    parts: list = []
    for finding in findings:
        head = Text(finding.severity, style=_STYLES[finding.severity])
        head.append(f"  {finding.id}", style="bold")
        parts += [head, Padding(Text(finding.message), (0, 0, 0, 2)),
                  Padding(Text(f"fix: {finding.fix}", style="dim"), (0, 0, 1, 2))]
    return Group(*parts)


def _text(finding: Finding) -> str:
    return f"{finding.message}\nfix: {finding.fix}"


def _escape_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's toolkit does (``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value, escaped as GitHub's toolkit does (``escapeProperty``)."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: DoctorReport) -> str:
    """One GitHub Actions workflow command per finding, in the report's order, each ending in a newline."""
    lines = []
    for finding in report.findings:
        where = finding.location
        properties = [] if where is None else [f"file={_escape_property(where.path)}", f"line={where.line}"]
        if where is not None and where.key is not None:
            properties.append(f"col={where.column}")
        properties.append(f"title={_escape_property(finding.id)}")
        lines.append(f"::{_GITHUB_LEVELS[finding.severity]} {','.join(properties)}::{_escape_data(_text(finding))}\n")
    return "".join(lines)


def _uri(path: str) -> str:
    """A SARIF artifact URI: a relative reference for a relative path, a file: URI for an absolute one."""
    from pathlib import Path

    if Path(path).is_absolute():
        return Path(path).as_uri()
    return quote(Path(path).as_posix())


def _sarif_location(where: Location) -> dict:
    region = {"startLine": where.line}
    if where.key is not None:
        region["startColumn"] = where.column
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(where.path)}, "region": region}}


def sarif_log(report: DoctorReport, *, version: str) -> dict:
    """The findings as a SARIF 2.1.0 log: one run by posemb ``version``, one rule per finding id found."""
    ids = list(dict.fromkeys(finding.id for finding in report.findings))
    results = []
    for finding in report.findings:
        result: dict = {"ruleId": finding.id, "ruleIndex": ids.index(finding.id),
                        "level": _SARIF_LEVELS[finding.severity], "message": {"text": _text(finding)}}
        if finding.location is not None:
            result["locations"] = [_sarif_location(finding.location)]
        results.append(result)
    rules = [{"id": rule_id, "shortDescription": {"text": describe(rule_id)}} for rule_id in ids]
    driver = {"name": "posemb", "version": version, "rules": rules}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}]}
