"""Each reporter against one canonical Report; every output is parsed, never compared as a blob."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from irtools.findings import FileReport, Finding, Report, Severity
from irtools.report import REPORTERS
from irtools.report.github import GithubReporter
from irtools.report.gitlab import GitlabReporter
from irtools.report.json_report import JsonReporter, finding_to_json
from irtools.report.junit import JunitReporter
from irtools.report.sarif import SarifReporter
from irtools.report.statistics import render_statistics
from irtools.report.text import TextReporter
from irtools.rules.registry import RULES, register

BAD = "ir/bad.json"
CLEAN = "ir/clean.json"
UNKNOWN_CODE = "ZZZ999"

# Codes the canonical report uses; registered only if the real rule modules have not registered them.
TEST_RULES = {
    "GIR100": ("invalid-json", Severity.ERROR),
    "GIR210": ("unused-transfer", Severity.WARNING),
    "GIR302": ("buffer-overlap", Severity.ERROR),
    "GIR501": ("schedule-note", Severity.INFO),
}

PARSE_ERROR = Finding(
    "GIR100", Severity.ERROR, "invalid JSON: Expecting ',' delimiter", pointer="", line=3, column=7
)
OVERLAP = Finding(
    "GIR302",
    Severity.ERROR,
    "buffer [0x1000, 0x1400) overlaps buffer 2 [0x1200, 0x1600)",
    pointer="/0/12/buffer/3",
    core_id=0,
    workload_id=12,
    transfer_id=56,
    related=("/0/12/buffer/2", "/0/13/buffer/0"),
)
UNUSED = Finding("GIR210", Severity.WARNING, "transfer 7 is never consumed", pointer="/-1/4", transfer_id=7)
NOTE = Finding(
    "GIR501", Severity.INFO, "L2 peak 50%, at t=3: see schedule\nsecond line", pointer="/1/0", core_id=1
)
# Sorted order of the bad file's findings: "" < "/-1/4" < "/0/12/buffer/3" < "/1/0".
BAD_ORDER = [PARSE_ERROR, UNUSED, OVERLAP, NOTE]


@pytest.fixture
def rules() -> Iterator[None]:
    """Register the canonical codes that RULES lacks, and remove exactly those afterwards."""
    added = []
    for code, (name, severity) in TEST_RULES.items():
        if code not in RULES:
            register(code, name, severity, f"Summary of {name}.\n\nWhy: longer documentation of {name}.")
            added.append(code)
    yield
    for code in added:
        del RULES[code]


@pytest.fixture
def report(rules: None) -> Report:
    """The canonical report: one file with every kind of finding, one clean file (given out of order)."""
    return Report([FileReport(CLEAN), FileReport(BAD, [NOTE, OVERLAP, PARSE_ERROR, UNUSED])])


def render(reporter: Any, report: Report) -> str:
    """Render into a string."""
    out = io.StringIO()
    reporter.render(report, out)
    return out.getvalue()


def unknown_code_report() -> Report:
    """A report whose only finding has a code that no rule registers."""
    assert UNKNOWN_CODE not in RULES
    return Report([FileReport("x.json", [Finding(UNKNOWN_CODE, Severity.ERROR, "odd", pointer="/0")])])


# --- registry -------------------------------------------------------------------------------------------


def test_reporters_registry_names_every_format() -> None:
    assert REPORTERS == {
        "text": TextReporter,
        "json": JsonReporter,
        "github": GithubReporter,
        "gitlab": GitlabReporter,
        "sarif": SarifReporter,
        "junit": JunitReporter,
    }


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_every_reporter_ends_with_newline(name: str, report: Report) -> None:
    assert render(REPORTERS[name](), report).endswith("\n")


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_unknown_code_does_not_crash(name: str) -> None:
    assert "ZZZ999" in render(REPORTERS[name](), unknown_code_report())


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_empty_report(name: str) -> None:
    assert render(REPORTERS[name](), Report([]))


# --- text -----------------------------------------------------------------------------------------------


def test_text_exact_lines(report: Report) -> None:
    assert render(TextReporter(), report).splitlines() == [
        "ir/bad.json:3:7: GIR100 error invalid JSON: Expecting ',' delimiter",
        "ir/bad.json:/-1/4: GIR210 warning transfer 7 is never consumed",
        (
            "ir/bad.json:/0/12/buffer/3: GIR302 error buffer [0x1000, 0x1400) overlaps buffer 2 [0x1200, 0x1600)"
            " (see /0/12/buffer/2, /0/13/buffer/0)"
        ),
        "ir/bad.json:/1/0: GIR501 info L2 peak 50%, at t=3: see schedule\\nsecond line",
        "2 files checked: 2 errors, 1 warning, 1 info",
    ]


def test_text_clean_file_prints_nothing(report: Report) -> None:
    assert CLEAN not in render(TextReporter(), report)


def test_text_whole_document_pointer_is_slash(rules: None) -> None:
    finding = Finding("GIR100", Severity.ERROR, "file is empty")
    text = render(TextReporter(), Report([FileReport("e.json", [finding])]))
    assert text.splitlines()[0] == "e.json:/: GIR100 error file is empty"


def test_text_position_without_a_column_is_column_1(rules: None) -> None:
    """Editors open `path:line:column`: a finding with a line but no column points at column 1."""
    finding = Finding("GIR100", Severity.ERROR, "file ends early", line=5)
    text = render(TextReporter(), Report([FileReport("e.json", [finding])]))
    assert text.splitlines()[0] == "e.json:5:1: GIR100 error file ends early"


def test_text_notes_are_pointer_then_related_separated_by_semicolon(rules: None) -> None:
    """With a position, the pointer and the related pointers follow the message as `(at …; see …)`."""
    finding = replace(OVERLAP, line=40, column=9)
    line = render(TextReporter(), Report([FileReport("p.json", [finding])])).splitlines()[0]
    assert line == (
        f"p.json:40:9: GIR302 error {OVERLAP.message} (at /0/12/buffer/3; see /0/12/buffer/2, /0/13/buffer/0)"
    )


@pytest.mark.parametrize(
    ("report", "summary"),
    [
        (Report([]), "0 files checked: 0 errors, 0 warnings, 0 info"),
        (Report([FileReport("a.json")]), "1 file checked: 0 errors, 0 warnings, 0 info"),
        (
            Report([FileReport("a.json", [Finding("GIR302", Severity.ERROR, "m", "/0")])]),
            "1 file checked: 1 error, 0 warnings, 0 info",
        ),
        (
            Report(
                [
                    FileReport("a.json", [Finding("GIR210", Severity.WARNING, "m", "/0")]),
                    FileReport("b.json", [Finding("GIR501", Severity.INFO, "m", "/1")] * 2),
                ]
            ),
            "2 files checked: 0 errors, 1 warning, 2 info",
        ),
    ],
)
def test_text_summary_pluralises(report: Report, summary: str) -> None:
    lines = render(TextReporter(), report).splitlines()
    assert lines[-1] == summary


# --- json -----------------------------------------------------------------------------------------------

FINDING_KEYS = {
    "code",
    "severity",
    "message",
    "pointer",
    "core_id",
    "workload_id",
    "transfer_id",
    "line",
    "column",
}


def test_json_exact_contract(report: Report) -> None:
    doc = json.loads(render(JsonReporter(), report))
    assert set(doc) == {"version", "files", "summary"}
    assert doc["version"] == 1
    assert doc["summary"] == {"files": 2, "errors": 2, "warnings": 1}
    assert [f["path"] for f in doc["files"]] == [BAD, CLEAN]
    for file_doc in doc["files"]:
        assert set(file_doc) == {"path", "errors", "warnings", "findings"}
        assert isinstance(file_doc["errors"], int) and isinstance(file_doc["warnings"], int)
        for finding in file_doc["findings"]:
            assert set(finding) == FINDING_KEYS
            assert finding["severity"] in {"error", "warning", "info"}
            assert isinstance(finding["pointer"], str)
            for key in ("core_id", "workload_id", "transfer_id"):
                assert finding[key] is None or isinstance(finding[key], int)
    bad, clean = doc["files"]
    assert (bad["errors"], bad["warnings"], len(bad["findings"])) == (2, 1, 4)
    assert (clean["errors"], clean["warnings"], clean["findings"]) == (0, 0, [])


def test_json_findings_keep_order_and_values(report: Report) -> None:
    bad = json.loads(render(JsonReporter(), report))["files"][0]
    assert bad["findings"] == [finding_to_json(f) | {"line": f.line, "column": f.column} for f in BAD_ORDER]
    assert bad["findings"][2] == {
        "code": "GIR302",
        "severity": "error",
        "message": "buffer [0x1000, 0x1400) overlaps buffer 2 [0x1200, 0x1600)",
        "pointer": "/0/12/buffer/3",
        "core_id": 0,
        "workload_id": 12,
        "transfer_id": 56,
        "line": None,
        "column": None,
    }
    assert (bad["findings"][0]["line"], bad["findings"][0]["column"]) == (3, 7)
    # Messages survive unchanged (no text-format escaping) and `related` stays out of the contract.
    assert bad["findings"][3]["message"] == NOTE.message


def test_json_is_indented_by_two(report: Report) -> None:
    text = render(JsonReporter(), report)
    assert text == json.dumps(json.loads(text), indent=2) + "\n"


def test_json_fingerprint_is_given_only_when_the_finding_has_one(rules: None) -> None:
    """Baselines and dashboards track a finding by its `fingerprint` key (irtools.baseline)."""
    tracked = replace(UNUSED, fingerprint="0f1e2d3c")
    doc = json.loads(render(JsonReporter(), Report([FileReport("a.json", [tracked, OVERLAP])])))
    unused, overlap = doc["files"][0]["findings"]
    assert unused["fingerprint"] == "0f1e2d3c" and set(unused) == FINDING_KEYS | {"fingerprint"}
    assert set(overlap) == FINDING_KEYS


# --- github ---------------------------------------------------------------------------------------------

COMMAND = re.compile(
    r"^::(?P<command>error|warning|notice) file=(?P<file>[^,:]*),line=(?P<line>\d+),col=(?P<col>\d+),"
    r"title=(?P<title>[^,:]*)::(?P<data>.*)$"
)


def unescape_data(value: str) -> str:
    """Undo GitHub's workflow-command escaping."""
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        value = value.replace(escaped, raw)
    return value


def test_github_commands(report: Report) -> None:
    lines = render(GithubReporter(), report).splitlines()
    assert len(lines) == len(BAD_ORDER) + 1
    matches = [COMMAND.match(line) for line in lines[:-1]]
    assert all(matches), lines
    parsed = [m.groupdict() for m in matches if m]
    assert [p["command"] for p in parsed] == ["error", "warning", "error", "notice"]
    assert {p["file"] for p in parsed} == {BAD}
    assert [unescape_data(p["title"]) for p in parsed] == [
        f"{f.code} {RULES[f.code].name}" for f in BAD_ORDER
    ]
    # Only the parse error has a real position; the others use the placeholder line 1, column 1.
    assert [(p["line"], p["col"]) for p in parsed] == [("3", "7"), ("1", "1"), ("1", "1"), ("1", "1")]
    assert parsed[2]["data"] == f"{OVERLAP.message} (at /0/12/buffer/3)"
    assert parsed[0]["data"] == PARSE_ERROR.message


def test_github_escapes_message(report: Report) -> None:
    note = render(GithubReporter(), report).splitlines()[3]
    assert note.endswith("::L2 peak 50%25, at t=3: see schedule%0Asecond line (at /1/0)")
    match = COMMAND.match(note)
    assert match and unescape_data(match["data"]) == f"{NOTE.message} (at /1/0)"


def test_github_escapes_properties(rules: None) -> None:
    path = "runs/a,b:c%d.json"
    finding = Finding("GIR210", Severity.WARNING, "m\r\nn", "/0")
    line = render(GithubReporter(), Report([FileReport(path, [finding])])).splitlines()[0]
    match = COMMAND.match(line)
    assert match, line
    assert match["file"] == "runs/a%2Cb%3Ac%25d.json"
    assert unescape_data(match["file"]) == path
    assert match["data"] == "m%0D%0An (at /0)"


def test_github_unknown_code_title_uses_code() -> None:
    line = render(GithubReporter(), unknown_code_report()).splitlines()[0]
    assert ",title=ZZZ999 ZZZ999::" in line


def test_github_ends_with_text_summary(report: Report) -> None:
    assert render(GithubReporter(), report).splitlines()[-1] == "2 files checked: 2 errors, 1 warning, 1 info"


# --- sarif ----------------------------------------------------------------------------------------------


def sarif(report: Report) -> dict[str, Any]:
    """Render and parse SARIF."""
    doc: dict[str, Any] = json.loads(render(SarifReporter(), report))
    return doc


def test_sarif_envelope(report: Report) -> None:
    doc = sarif(report)
    assert doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert doc["version"] == "2.1.0"
    assert len(doc["runs"]) == 1
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["name"] == "irtools"
    assert driver["informationUri"] == "https://github.com/irtools/irtools"
    assert isinstance(driver["version"], str) and driver["version"]
    assert [a["location"]["uri"] for a in doc["runs"][0]["artifacts"]] == [BAD, CLEAN]


def test_sarif_rules_cover_registry(report: Report) -> None:
    rules = sarif(report)["runs"][0]["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids == sorted(RULES)
    assert len(ids) == len(set(ids))
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for descriptor in rules:
        entry = RULES[descriptor["id"]]
        assert descriptor["name"] == entry.name
        assert descriptor["shortDescription"]["text"] == entry.summary
        assert descriptor["fullDescription"]["text"] == (entry.doc or entry.summary)
        assert descriptor["defaultConfiguration"]["level"] == levels[entry.severity.value]


def test_sarif_results(report: Report) -> None:
    run = sarif(report)["runs"][0]
    rules, results = run["tool"]["driver"]["rules"], run["results"]
    assert [r["ruleId"] for r in results] == [f.code for f in BAD_ORDER]
    assert [r["level"] for r in results] == ["error", "warning", "error", "note"]
    assert [r["message"]["text"] for r in results] == [f.message for f in BAD_ORDER]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        (location,) = r["locations"]
        assert location["physicalLocation"]["artifactLocation"]["uri"] == BAD
        artifact_index = location["physicalLocation"]["artifactLocation"]["index"]
        assert run["artifacts"][artifact_index]["location"]["uri"] == BAD
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert regions == [{"startLine": 3, "startColumn": 7}] + [{"startLine": 1, "startColumn": 1}] * 3


def test_sarif_pointer_locations_and_properties(report: Report) -> None:
    parse_error, unused, overlap, note = sarif(report)["runs"][0]["results"]
    assert "logicalLocations" not in parse_error["locations"][0]
    assert parse_error["properties"] == {"pointer": ""}
    assert overlap["locations"][0]["logicalLocations"] == [
        {"fullyQualifiedName": "/0/12/buffer/3", "kind": "element"}
    ]
    assert overlap["properties"] == {
        "pointer": "/0/12/buffer/3",
        "core_id": 0,
        "workload_id": 12,
        "transfer_id": 56,
    }
    assert unused["properties"] == {"pointer": "/-1/4", "transfer_id": 7}
    assert note["properties"] == {"pointer": "/1/0", "core_id": 1}
    related = [loc["logicalLocations"][0]["fullyQualifiedName"] for loc in overlap["relatedLocations"]]
    assert related == list(OVERLAP.related)
    assert all("relatedLocations" not in r for r in (parse_error, unused, note))


def test_sarif_related_locations_are_numbered_from_1_in_the_findings_order(report: Report) -> None:
    """A SARIF message links a related location by its id (`[text](1)`): ids 1..n, each naming its pointer
    and the finding's own artifact."""
    overlap = sarif(report)["runs"][0]["results"][2]
    assert [(loc["id"], loc["message"]["text"]) for loc in overlap["relatedLocations"]] == [
        (1, "/0/12/buffer/2"),
        (2, "/0/13/buffer/0"),
    ]
    artifact = overlap["locations"][0]["physicalLocation"]["artifactLocation"]
    assert all(loc["physicalLocation"]["artifactLocation"] == artifact for loc in overlap["relatedLocations"])


def test_sarif_driver_version_is_the_package_version(report: Report, monkeypatch: pytest.MonkeyPatch) -> None:
    """Code scanning shows the tool's version: the package's, or "0" when it defines none."""
    import irtools

    assert sarif(report)["runs"][0]["tool"]["driver"]["version"] == irtools.__version__
    monkeypatch.delattr(irtools, "__version__")
    assert sarif(report)["runs"][0]["tool"]["driver"]["version"] == "0"


def test_sarif_unknown_code_has_no_rule_index() -> None:
    (result,) = sarif(unknown_code_report())["runs"][0]["results"]
    assert result["ruleId"] == UNKNOWN_CODE
    assert "ruleIndex" not in result


def test_sarif_uri_uses_forward_slashes(rules: None) -> None:
    report = Report([FileReport("ir\\sub dir\\a.json", [Finding("GIR302", Severity.ERROR, "m", "/0")])])
    run = sarif(report)["runs"][0]
    uri = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "ir/sub%20dir/a.json"
    assert run["artifacts"][0]["location"]["uri"] == uri


def test_sarif_is_indented_by_two(report: Report) -> None:
    text = render(SarifReporter(), report)
    assert text == json.dumps(json.loads(text), indent=2) + "\n"


# --- junit ----------------------------------------------------------------------------------------------


def junit(report: Report) -> ET.Element:
    """Render and parse JUnit XML (as bytes, so the declared encoding is honoured)."""
    return ET.fromstring(render(JunitReporter(), report).encode("utf-8"))


def test_junit_declaration(report: Report) -> None:
    assert render(JunitReporter(), report).startswith('<?xml version="1.0" encoding="utf-8"?>\n')


def test_junit_counts(report: Report) -> None:
    root = junit(report)
    assert root.tag == "testsuites"
    assert root.attrib == {"name": "irtools", "tests": "2", "failures": "1"}
    (suite,) = root
    assert suite.tag == "testsuite"
    assert suite.attrib == {"name": "irtools validate", "tests": "2", "failures": "1", "errors": "0"}
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("irtools.validate", BAD),
        ("irtools.validate", CLEAN),
    ]


def test_junit_failure_only_for_error_file(report: Report) -> None:
    bad, clean = junit(report).iter("testcase")
    (failure,) = bad.findall("failure")
    assert failure.attrib == {"message": "2 errors, 1 warning", "type": "GIR"}
    text_lines = render(TextReporter(), report).splitlines()[:-1]
    assert (failure.text or "").splitlines() == text_lines
    assert list(clean) == []


def test_junit_warnings_only_file_passes_with_output(rules: None) -> None:
    report = Report(
        [
            FileReport("w.json", [UNUSED, NOTE]),
            FileReport("x.json", [OVERLAP]),
        ]
    )
    root = junit(report)
    assert root.get("failures") == "1"
    warned, failed = root.iter("testcase")
    assert warned.find("failure") is None
    out = warned.find("system-out")
    assert out is not None and (out.text or "").splitlines() == [
        "w.json:/-1/4: GIR210 warning transfer 7 is never consumed",
        "w.json:/1/0: GIR501 info L2 peak 50%, at t=3: see schedule\\nsecond line",
    ]
    failure = failed.find("failure")
    assert failure is not None and failure.get("message") == "1 error, 0 warnings"


def test_junit_keeps_non_ascii_and_drops_control_characters(rules: None) -> None:
    finding = Finding("GIR100", Severity.ERROR, "bad byte \x01 near «é»")
    case = next(junit(Report([FileReport("données.json", [finding])])).iter("testcase"))
    assert case.get("name") == "données.json"
    failure = case.find("failure")
    assert failure is not None and "near «é»" in (failure.text or "")


def test_junit_replaces_each_illegal_character_with_the_replacement_character(rules: None) -> None:
    """What XML 1.0 cannot carry becomes U+FFFD, one for one: a form feed in the test case's name, the
    non-character U+FFFF in the failure text (which holds the text report's lines, where a form feed is
    already escaped as `\\x0c`)."""
    finding = Finding("GIR302", Severity.ERROR, "layer a\x0cb\uffff overlaps", pointer="/0")
    case = next(junit(Report([FileReport("ir/x\x0cy.json", [finding])])).iter("testcase"))
    assert case.get("name") == "ir/x\ufffdy.json"
    failure = case.find("failure")
    assert failure is not None
    assert (failure.text or "").splitlines() == [
        "ir/x\\x0cy.json:/0: GIR302 error layer a\\x0cb\ufffd overlaps"
    ]


def test_junit_a_clean_file_before_a_failing_one(rules: None) -> None:
    """A clean file ends only its own test case: the failing file after it (by path) still fails."""
    root = junit(
        Report([FileReport("a.json"), FileReport("b.json", [OVERLAP]), FileReport("c.json", [UNUSED])])
    )
    clean, failed, warned = root.iter("testcase")
    assert [c.get("name") for c in (clean, failed, warned)] == ["a.json", "b.json", "c.json"]
    assert list(clean) == []
    failure = failed.find("failure")
    assert failure is not None and failure.get("message") == "1 error, 0 warnings"
    assert warned.findtext("system-out") == "c.json:/-1/4: GIR210 warning transfer 7 is never consumed\n"


# --- gitlab ---------------------------------------------------------------------------------------------


def gitlab(report: Report) -> list[dict[str, Any]]:
    """Render and parse the Code Quality report."""
    issues: list[dict[str, Any]] = json.loads(render(GitlabReporter(), report))
    return issues


def test_gitlab_exact_issues(rules: None) -> None:
    """GitLab's fields per finding: code and message (pointer appended), rule, the finding's own
    fingerprint when it has one, GitLab's severity, the repository-relative path and the line (1 without)."""
    tracked = replace(PARSE_ERROR, fingerprint="5eed")
    issues = gitlab(Report([FileReport("./ir/bad.json", [tracked, UNUSED])]))
    spare = issues[1]["fingerprint"]
    assert issues == [
        {
            "description": "GIR100 invalid JSON: Expecting ',' delimiter",
            "check_name": f"GIR100 {RULES['GIR100'].name}",
            "fingerprint": "5eed",
            "severity": "major",
            "location": {"path": "ir/bad.json", "lines": {"begin": 3}},
        },
        {
            "description": "GIR210 transfer 7 is never consumed (at /-1/4)",
            "check_name": f"GIR210 {RULES['GIR210'].name}",
            "fingerprint": spare,
            "severity": "minor",
            "location": {"path": "ir/bad.json", "lines": {"begin": 1}},
        },
    ]
    assert re.fullmatch("[0-9a-f]{32}", spare)


@pytest.mark.parametrize("given", ["ir/bad.json", "./ir/bad.json", "ir\\bad.json", ".\\ir\\bad.json"])
def test_gitlab_path_is_repository_relative_with_forward_slashes(rules: None, given: str) -> None:
    """GitLab matches `location.path` against the repository's files: a Windows or `./` spelling of one
    path gives the same path and the same fallback fingerprints (GitLab compares them between pipelines)."""
    issues = gitlab(Report([FileReport(given, [UNUSED, OVERLAP])]))
    assert issues == gitlab(Report([FileReport("ir/bad.json", [UNUSED, OVERLAP])]))
    assert {i["location"]["path"] for i in issues} == {"ir/bad.json"}


def test_gitlab_is_indented_by_two(report: Report) -> None:
    text = render(GitlabReporter(), report)
    assert text == json.dumps(json.loads(text), indent=2) + "\n"


# --- statistics -----------------------------------------------------------------------------------------


def statistics_text(report: Report, as_json: bool = False) -> str:
    """`--statistics` as printed: text by default, JSON (indented by 2) with `as_json`."""
    out = io.StringIO()
    if as_json:
        render_statistics(report, out, as_json=True)
        text = out.getvalue()
        assert text == json.dumps(json.loads(text), indent=2) + "\n"
        return text
    render_statistics(report, out)
    return out.getvalue()


def test_statistics_rows_most_frequent_first_then_code_then_error_first(rules: None) -> None:
    """ruff's --statistics order: count (most first), then code, then severity (a code a config raised to
    error counts apart from its warnings); counts right-aligned to the widest, then the total."""
    note = Finding("GIR501", Severity.INFO, "m", "/1")
    findings = [note] * 12 + [OVERLAP, OVERLAP, UNUSED, UNUSED, replace(note, severity=Severity.WARNING)]
    report = Report([FileReport("b.json", findings), FileReport("a.json", [])])
    name = {code: RULES[code].name for code in ("GIR210", "GIR302", "GIR501")}
    assert statistics_text(report).splitlines() == [
        f"12  GIR501  info     {name['GIR501']}",
        f" 2  GIR210  warning  {name['GIR210']}",
        f" 2  GIR302  error    {name['GIR302']}",
        f" 1  GIR501  warning  {name['GIR501']}",
        "17 findings in 2 files",
    ]
    rows = json.loads(statistics_text(report, as_json=True))
    assert [(r["count"], r["code"], r["severity"], r["name"]) for r in rows] == [
        (12, "GIR501", "info", name["GIR501"]),
        (2, "GIR210", "warning", name["GIR210"]),
        (2, "GIR302", "error", name["GIR302"]),
        (1, "GIR501", "warning", name["GIR501"]),
    ]


def test_statistics_same_count_and_code_error_before_warning(rules: None) -> None:
    findings = [UNUSED, replace(UNUSED, severity=Severity.ERROR)]
    lines = statistics_text(Report([FileReport("a.json", findings)])).splitlines()
    assert [line.split()[:3] for line in lines[:-1]] == [["1", "GIR210", "error"], ["1", "GIR210", "warning"]]


@pytest.mark.parametrize(
    ("report", "total"),
    [
        (Report([]), "0 findings in 0 files"),
        (Report([FileReport("a.json", [UNUSED])]), "1 finding in 1 file"),
        (Report([FileReport("a.json", [UNUSED]), FileReport("b.json")]), "1 finding in 2 files"),
    ],
)
def test_statistics_total_is_pluralised(rules: None, report: Report, total: str) -> None:
    """The last line counts findings and files in English: `1 finding in 1 file` (it said `1 files`)."""
    assert statistics_text(report).splitlines()[-1] == total
    assert json.loads(statistics_text(report, as_json=True)) == [
        {"code": f.code, "name": RULES[f.code].name, "severity": f.severity.value, "count": 1}
        for file_report in report.files
        for f in file_report.findings
    ]
