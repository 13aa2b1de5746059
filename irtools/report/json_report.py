"""The JSON report: the stable machine-readable contract (version 1)."""

from __future__ import annotations

import json
from typing import Any, TextIO

from irtools.findings import FileReport, Finding, Report

JSON_VERSION = 1


def finding_to_json(f: Finding) -> dict[str, Any]:
    """The contract's per-finding object (also the shape of `.expected.json` goldens)."""
    return f.to_row()


def _located(f: Finding) -> dict[str, Any]:
    where: dict[str, Any] = {"line": f.line, "column": f.column}
    return where | {"fingerprint": f.fingerprint} if f.fingerprint else where


def file_to_json(file_report: FileReport) -> dict[str, Any]:
    """The contract's per-file object."""
    return {
        "path": file_report.path,
        "errors": file_report.errors,
        "warnings": file_report.warnings,
        # Positions are in the report, not in the goldens: they describe the file's layout, not the IR.
        "findings": [finding_to_json(f) | _located(f) for f in file_report.findings],
    }


def report_to_json(report: Report) -> dict[str, Any]:
    """The whole JSON report as a dict."""
    return {
        "version": JSON_VERSION,
        "files": [file_to_json(f) for f in report.files],
        "summary": {"files": len(report.files), "errors": report.errors, "warnings": report.warnings},
    }


class JsonReporter:
    """The version 1 JSON document, indented by 2, with a trailing newline."""

    def render(self, report: Report, out: TextIO) -> None:
        """Write the JSON document."""
        out.write(json.dumps(report_to_json(report), indent=2) + "\n")
