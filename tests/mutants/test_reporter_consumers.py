"""Reporters read by their consumers' own rules: an XML 1.0 parser, GitLab's severity scale, a terminal.

Kills three mutations of issue 33 that the blob-level reporter tests let through: JUnit no longer
replacing a form feed (the file stops being XML 1.0), GitLab reporting warnings as `major`, and the text
reporter no longer escaping a carriage return (a line that overwrites itself on a terminal).
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET

import pytest

from irtools.findings import FileReport, Finding, Report, Severity
from irtools.report.gitlab import GitlabReporter
from irtools.report.junit import JunitReporter
from irtools.report.text import TextReporter

CONTROLS = "".join(chr(c) for c in range(0x20)) + "\x7f"
"""Every C0 control character and DEL: what a layer name copied into a message could carry."""

GITLAB_SEVERITIES = ["info", "minor", "major", "critical", "blocker"]
"""GitLab Code Quality's severity levels, lowest first (its report format's `severity`)."""


def _report(message: str, path: str = "ir/a.json") -> Report:
    findings = [
        Finding("GIR302", Severity.ERROR, message, pointer="/0/1/buffer/2", core_id=0, workload_id=1),
        Finding("GIR304", Severity.WARNING, message, pointer="/0/2/buffer/0/newly_added"),
        Finding("GIR303", Severity.INFO, message, pointer="/0/0/ring_buffer_info/1"),
    ]
    return Report([FileReport(path, findings)])


def _render(reporter: object, report: Report) -> str:
    out = io.StringIO()
    reporter.render(report, out)  # type: ignore[attr-defined]
    return out.getvalue()


@pytest.mark.parametrize("char", list(CONTROLS), ids=[f"x{ord(c):02x}" for c in CONTROLS])
def test_junit_is_xml_1_0_whatever_control_character_a_message_or_path_holds(char: str) -> None:
    """Kills JUnit no longer replacing a form feed: expat (an XML 1.0 parser) must read the file."""
    text = _render(JunitReporter(), _report(f"layer a{char}b overlaps", path=f"ir/x{char}y.json"))
    root = ET.fromstring(text.encode("utf-8"))
    case = root.find("testsuite/testcase")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None and failure.text is not None
    assert failure.text.count("GIR30") == 3
    if char < " " and char not in "\t\n\r":  # XML 1.0 allows these three (and DEL); all others are replaced
        assert char not in failure.text and char not in case.get("name", "")


def test_gitlab_severities_are_geminis_order_on_gitlabs_scale() -> None:
    """Kills GitLab reporting warnings as `major`: error > warning > info stays strictly ordered."""
    issues = json.loads(_render(GitlabReporter(), _report("m")))
    levels = {issue["check_name"].split()[0]: issue["severity"] for issue in issues}
    assert levels == {"GIR302": "major", "GIR304": "minor", "GIR303": "info"}
    ranks = [GITLAB_SEVERITIES.index(levels[code]) for code in ("GIR303", "GIR304", "GIR302")]
    assert ranks == sorted(set(ranks))  # strictly increasing: no two of our levels share one of GitLab's


_TERMINAL_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f]")


@pytest.mark.parametrize("char", list(CONTROLS), ids=[f"x{ord(c):02x}" for c in CONTROLS])
def test_text_lines_are_terminal_safe(char: str) -> None:
    """Kills the text reporter no longer escaping a carriage return: each finding stays one line that
    carries no control character a terminal would act on (CR, ESC sequences, backspace, bell)."""
    lines = _render(TextReporter(), _report(f"layer a{char}b overlaps")).split("\n")
    assert lines[-1] == ""
    body = lines[:-1]
    assert len(body) == 4 and body[-1].startswith("1 file checked")
    for line in body:
        assert not _TERMINAL_UNSAFE.search(line), repr(line)
    assert all(line.endswith(" overlaps") or "(" in line for line in body[:3])
    assert "\\r" in body[0] if char == "\r" else True
