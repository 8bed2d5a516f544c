"""`posemb doctor` for people: one row per finding, errors first, and a verdict line.

Where the table does not fit the width whole (a field name is one long word), each
finding is a block of lines instead: severity and id, the finding, the fix.
"""

from __future__ import annotations

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from posemb_cli.render.fit import Fitted
from posemb_cli.run.documents import SEVERITIES, DoctorReport

_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}

__all__ = ["render_doctor"]


def render_doctor(report: DoctorReport) -> Group:
    source = report.source.get("checkpoint") or report.source.get("config")
    findings = sorted(report.findings, key=lambda finding: SEVERITIES.index(finding.severity))
    counts = {severity: sum(finding.severity == severity for finding in findings) for severity in SEVERITIES}
    verdict = Text(f"posemb doctor {source}: ", style="bold")
    verdict.append(", ".join(f"{count} {severity}{'s' if count != 1 else ''}" for severity, count in counts.items()),
                   style="bold red" if counts["error"] else "green")
    if not findings:
        return Group(verdict, Text("No findings: the position setup is consistent.", style="green"))
    return Group(verdict, Fitted(lambda: _table(findings), lambda: _blocks(findings)))


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
