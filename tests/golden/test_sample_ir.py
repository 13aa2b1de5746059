"""Every sample_ir file gives exactly the findings in its .expected.json sidecar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irtools.findings import Severity
from irtools.report.json_report import finding_to_json
from irtools.validate import validate_file

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ir"
FILES = sorted(p for p in SAMPLES.rglob("*.json") if not p.name.endswith(".expected.json"))


def _expected_path(sample: Path) -> Path:
    return sample.with_name(sample.name.removesuffix(".json") + ".expected.json")


@pytest.mark.parametrize("sample", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_sample_findings_match_golden(sample: Path, update_goldens: bool) -> None:
    report = validate_file(str(sample))
    actual = [finding_to_json(f) for f in report.findings]
    expected_path = _expected_path(sample)
    if update_goldens:
        expected_path.write_text(json.dumps(actual, indent=2) + "\n")
    assert expected_path.exists(), f"missing {expected_path.name}; run pytest --update-goldens and review it"
    assert actual == json.loads(expected_path.read_text())


@pytest.mark.parametrize("sample", [p for p in FILES if p.parent.name == "valid"], ids=lambda p: p.stem)
def test_valid_samples_have_no_errors_or_warnings(sample: Path) -> None:
    report = validate_file(str(sample))
    assert [f for f in report.findings if f.severity is not Severity.INFO] == []


@pytest.mark.parametrize("sample", [p for p in FILES if p.parent.name == "invalid"], ids=lambda p: p.stem)
def test_invalid_sample_reports_its_own_code(sample: Path) -> None:
    """An invalid sample is named after the rule it exercises; that rule must fire at warning or error."""
    code = sample.name.split("-")[0]
    report = validate_file(str(sample))
    assert any(f.code == code and f.severity is not Severity.INFO for f in report.findings)


def test_every_rule_with_a_check_has_an_invalid_sample() -> None:
    from irtools.rules import RULES

    covered = {p.name.split("-")[0] for p in FILES if p.parent.name == "invalid"}
    # GIR308/GIR402 are opt-in (need --addr-align/--wl0-size) and are tested in tests/rules.
    opt_in = {"GIR308", "GIR402", "GIR001"}
    missing = {c for c, r in RULES.items() if r.check is not None and c not in opt_in} - covered
    assert not missing, f"rules without an invalid sample: {sorted(missing)}"
