"""One finding, one row: the JSON report, the sweep's findings table and SARIF's properties all take
`Finding.to_row()`, so the three can never disagree on a key or a value."""

from __future__ import annotations

import json

from irtools.findings import FileReport, Finding, Report, Severity
from irtools.report.json_report import finding_to_json
from irtools.report.sarif import report_to_sarif
from irtools.sweep.row import SWEEP_FINDINGS, finding_rows

OVERLAP = Finding(
    "GIR302",
    Severity.ERROR,
    "ifmap tensor 0 [0x0, 0x4000) overlaps weight tensor 1 [0x2000, 0x3200)",
    "/2/0/buffer/0",
    core_id=2,
    workload_id=0,
    line=869,
    column=5,
    related=("/2/0/buffer/1",),
)


def test_the_row_holds_the_json_contract_keys_and_nothing_else() -> None:
    assert OVERLAP.to_row() == {
        "code": "GIR302",
        "severity": "error",
        "message": OVERLAP.message,
        "pointer": "/2/0/buffer/0",
        "core_id": 2,
        "workload_id": 0,
        "transfer_id": None,
    }
    assert json.loads(json.dumps(finding_to_json(OVERLAP))) == OVERLAP.to_row()


def test_the_sweep_row_is_the_finding_row_with_its_path() -> None:
    [row] = finding_rows("sweep/a.json", [OVERLAP])
    assert row == {"path": "sweep/a.json", **OVERLAP.to_row()}
    assert set(row) == {column.name for column in SWEEP_FINDINGS.columns}


def test_sarif_properties_are_the_rows_location_without_nulls() -> None:
    log = report_to_sarif(Report([FileReport("a.json", [OVERLAP])]))
    [result] = log["runs"][0]["results"]
    assert result["properties"] == {"pointer": "/2/0/buffer/0", "core_id": 2, "workload_id": 0}
