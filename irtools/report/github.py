"""GitHub Actions workflow commands, which become annotations on the pull request."""

from __future__ import annotations

from typing import TextIO

from irtools.findings import Finding, Report, Severity
from irtools.report.base import rule_name
from irtools.report.text import summary_line

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(value: str) -> str:
    """Escape a workflow command's message (`%`, CR, LF)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a workflow command's property value (data escapes plus `:` and `,`)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command_line(path: str, finding: Finding) -> str:
    """One `::error file=…,line=…,col=…,title=…::message (at pointer)` command."""
    properties = ",".join(
        [
            f"file={escape_property(path)}",
            f"line={finding.line or 1}",
            f"col={finding.column or 1}",
            f"title={escape_property(f'{finding.code} {rule_name(finding.code)}')}",
        ]
    )
    # Without a source position GitHub gets a placeholder line 1, so the pointer carries the location;
    # the whole-document pointer "" adds nothing and is left out.
    data = f"{finding.message} (at {finding.pointer})" if finding.pointer else finding.message
    return f"::{COMMANDS[finding.severity]} {properties}::{escape_data(data)}"


class GithubReporter:
    """One workflow command per finding, then the plain summary line for readable logs."""

    def render(self, report: Report, out: TextIO) -> None:
        """Write the workflow commands and the summary line."""
        for file_report in report.files:
            out.writelines(command_line(file_report.path, finding) + "\n" for finding in file_report.findings)
        out.write(summary_line(report) + "\n")
