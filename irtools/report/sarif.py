"""SARIF 2.1.0 for code-scanning dashboards (GitHub code scanning, IDE viewers)."""

from __future__ import annotations

import json
from typing import Any, TextIO
from urllib.parse import quote

import irtools
from irtools.findings import Finding, Report, Severity
from irtools.rules.registry import RULES, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/irtools/irtools"
FINGERPRINT_KEY = "irtoolsFinding/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def tool_version() -> str:
    """`irtools.__version__`, or "0" when the package does not define it."""
    return str(getattr(irtools, "__version__", "0"))


def artifact_uri(path: str) -> str:
    """A relative URI reference for a path as given: forward slashes, unsafe characters percent-encoded."""
    return quote(path.replace("\\", "/"), safe="/")


def logical_location(pointer: str) -> dict[str, Any]:
    """A logical location naming an element of the JSON document by its pointer."""
    return {"fullyQualifiedName": pointer, "kind": "element"}


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    """A reportingDescriptor for one registered rule."""
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc or rule.summary},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
    }


def result(finding: Finding, artifact: dict[str, Any], rule_index: dict[str, int]) -> dict[str, Any]:
    """A SARIF result for one finding in the file described by `artifact` (an artifactLocation)."""
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {"startLine": finding.line or 1, "startColumn": finding.column or 1},
        }
    }
    if finding.pointer:
        location["logicalLocations"] = [logical_location(finding.pointer)]
    entry: dict[str, Any] = {"ruleId": finding.code}
    if finding.code in rule_index:
        entry["ruleIndex"] = rule_index[finding.code]
    entry["level"] = LEVELS[finding.severity]
    entry["message"] = {"text": finding.message}
    entry["locations"] = [location]
    if finding.fingerprint:
        # Code scanning tracks a result across commits by it (the line is left out: lines move).
        entry["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    if finding.related:
        entry["relatedLocations"] = [
            {
                "id": number,
                "message": {"text": pointer},
                "physicalLocation": {"artifactLocation": artifact},
                "logicalLocations": [logical_location(pointer)],
            }
            for number, pointer in enumerate(finding.related, start=1)
        ]
    # The location part of the contract; code, severity and message are SARIF's own fields above.
    located = ("pointer", "core_id", "workload_id", "transfer_id")
    entry["properties"] = {
        key: value for key, value in finding.to_row().items() if key in located and value is not None
    }
    return entry


def report_to_sarif(report: Report) -> dict[str, Any]:
    """The whole SARIF log as a dict: one run, rules from RULES sorted by code."""
    rules = [RULES[code] for code in sorted(RULES)]
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    artifacts: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for index, file_report in enumerate(report.files):
        uri = artifact_uri(file_report.path)
        artifacts.append({"location": {"uri": uri}})
        artifact = {"uri": uri, "index": index}
        results.extend(result(f, artifact, rule_index) for f in file_report.findings)
    driver = {
        "name": "irtools",
        "version": tool_version(),
        "informationUri": INFORMATION_URI,
        "rules": [rule_descriptor(rule) for rule in rules],
    }
    run = {
        "tool": {"driver": driver},
        # GIR100 columns come from Python's JSON decoder, which counts code points.
        "columnKind": "unicodeCodePoints",
        "artifacts": artifacts,
        "results": results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


class SarifReporter:
    """A SARIF 2.1.0 log, indented by 2, with a trailing newline."""

    def render(self, report: Report, out: TextIO) -> None:
        """Write the SARIF log."""
        out.write(json.dumps(report_to_sarif(report), indent=2) + "\n")
