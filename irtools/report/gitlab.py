"""GitLab Code Quality: a JSON array of issues, shown in merge requests (artifacts: reports: codequality)."""

from __future__ import annotations

import json
from typing import Any, TextIO

from irtools.findings import Report, Severity
from irtools.fingerprint import file_fingerprints
from irtools.report.base import rule_name

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}
"""GitLab's levels are info, minor, major, critical and blocker."""


def report_to_gitlab(report: Report) -> list[dict[str, Any]]:
    """One issue per finding; the path as given (GitLab wants it relative to the repository root)."""
    issues = []
    for file_report in report.files:
        path = file_report.path.replace("\\", "/").removeprefix("./")
        # Fingerprints come from the command line (relative to the project root); a report built
        # without it still gets stable ones, relative to the path as given.
        fallback = file_fingerprints(file_report.findings, path)
        for finding, spare in zip(file_report.findings, fallback):
            where = f" (at {finding.pointer})" if finding.pointer else ""
            issues.append(
                {
                    "description": f"{finding.code} {finding.message}{where}",
                    "check_name": f"{finding.code} {rule_name(finding.code)}",
                    "fingerprint": finding.fingerprint or spare,
                    "severity": SEVERITIES[finding.severity],
                    "location": {"path": path, "lines": {"begin": finding.line or 1}},
                }
            )
    return issues


class GitlabReporter:
    """The Code Quality report, indented by 2, with a trailing newline."""

    def render(self, report: Report, out: TextIO) -> None:
        """Write the JSON array."""
        out.write(json.dumps(report_to_gitlab(report), indent=2) + "\n")
