"""Every sample_ir file gives exactly the findings in its .expected.json sidecar, checked with the options
of its nearest configuration file, as `irtools validate` checks it (sample_ir/invalid/raw-alloc gives the
L2 size its dialects do not record)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irtools.config.files import find_config
from irtools.config.resolve import make_run_options
from irtools.findings import FileReport, Severity
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.report.json_report import finding_to_json
from irtools.validate import validate_file

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ir"
FILES = sorted(p for p in SAMPLES.rglob("*.json") if not p.name.endswith(".expected.json"))
VALID = [p for p in FILES if p.relative_to(SAMPLES).parts[0] == "valid"]
INVALID = [p for p in FILES if p.relative_to(SAMPLES).parts[0] == "invalid"]


def _expected_path(sample: Path) -> Path:
    return sample.with_name(sample.name.removesuffix(".json") + ".expected.json")


def _options(sample: Path) -> RunOptions:
    config = find_config(sample)
    return make_run_options(config.values) if config else RunOptions()


def _validate(sample: Path) -> FileReport:
    return validate_file(str(sample), _options(sample))


@pytest.mark.parametrize("sample", FILES, ids=lambda p: p.relative_to(SAMPLES).with_suffix("").as_posix())
def test_sample_findings_match_golden(sample: Path, update_goldens: bool) -> None:
    report = _validate(sample)
    actual = [finding_to_json(f) for f in report.findings]
    expected_path = _expected_path(sample)
    if update_goldens:
        expected_path.write_text(json.dumps(actual, indent=2) + "\n")
    assert expected_path.exists(), f"missing {expected_path.name}; run pytest --update-goldens and review it"
    assert actual == json.loads(expected_path.read_text())


@pytest.mark.parametrize("sample", VALID, ids=lambda p: p.stem)
def test_valid_samples_have_no_errors_or_warnings(sample: Path) -> None:
    report = _validate(sample)
    assert [f for f in report.findings if f.severity is not Severity.INFO] == []


@pytest.mark.parametrize("sample", INVALID, ids=lambda p: p.stem)
def test_invalid_sample_reports_its_own_code(sample: Path) -> None:
    """An invalid sample is named after the rule it exercises; that rule must fire at warning or error."""
    code = sample.name.split("-")[0]
    report = _validate(sample)
    assert any(f.code == code and f.severity is not Severity.INFO for f in report.findings)


def test_every_rule_with_a_check_has_an_invalid_sample() -> None:
    from irtools.rules import RULES

    covered = {p.name.split("-")[0] for p in INVALID}
    # GIR308/GIR402 are opt-in (need --addr-align/--wl0-size) and are tested in tests/rules.
    opt_in = {"GIR308", "GIR402", "GIR001"}
    missing = {c for c, r in RULES.items() if r.check is not None and c not in opt_in} - covered
    assert not missing, f"rules without an invalid sample: {sorted(missing)}"


def test_every_form_of_a_rule_has_an_invalid_sample() -> None:
    """Each dialect variant of a rule (raw and alloc forms of GIR204, GIR301, GIR304, GIR305) is the form
    some invalid sample of that rule runs: a form no sample reaches could break unseen."""
    from irtools.rules import RULES

    reached = set()
    for sample in INVALID:
        code = sample.name.split("-")[0]
        loaded = load_ir(sample)
        if code in RULES and loaded.ir is not None:
            form = RULES[code].form_for(IRIndex(loaded, _options(sample)).capabilities)
            reached.add((code, id(form)))
    opt_in = {"GIR308", "GIR402"}
    forms = [
        (code, form)
        for code, entry in RULES.items()
        if code not in opt_in
        for form in (entry.main, *entry.variants)
        if form is not None
    ]
    missing = [
        f"{code} needing {sorted(form.needs)}" for code, form in forms if (code, id(form)) not in reached
    ]
    assert not missing, f"forms without an invalid sample: {missing}"
    assert len(forms) >= len([c for c in RULES if RULES[c].main]) - len(opt_in) + 6
