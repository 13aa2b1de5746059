"""JUnit XML for CI test dashboards: one test case per file, failing when the file has errors."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TextIO

from irtools.findings import Report
from irtools.report.text import finding_line, plural

# XML 1.0 cannot carry most control characters, even escaped; a stray one would make the file unreadable.
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(value: str) -> str:
    return _ILLEGAL_XML.sub("\ufffd", value)


def report_to_junit(report: Report) -> ET.Element:
    """The `<testsuites>` element for a report."""
    tests = str(len(report.files))
    failures = str(sum(1 for f in report.files if f.errors))
    root = ET.Element("testsuites", name="irtools", tests=tests, failures=failures)
    suite = ET.SubElement(
        root, "testsuite", name="irtools validate", tests=tests, failures=failures, errors="0"
    )
    for file_report in report.files:
        case = ET.SubElement(
            suite, "testcase", classname="irtools.validate", name=_xml_text(file_report.path)
        )
        if not file_report.findings:
            continue
        text = "\n".join(finding_line(file_report.path, f) for f in file_report.findings) + "\n"
        if file_report.errors:
            message = f"{plural(file_report.errors, 'error')}, {plural(file_report.warnings, 'warning')}"
            failure = ET.SubElement(case, "failure", message=message, type="GIR")
            failure.text = _xml_text(text)
        else:
            ET.SubElement(case, "system-out").text = _xml_text(text)
    return root


class JunitReporter:
    """JUnit XML with an XML declaration; the body is pure ASCII, so it is valid UTF-8 on any stream."""

    def render(self, report: Report, out: TextIO) -> None:
        """Write the JUnit XML document."""
        root = report_to_junit(report)
        ET.indent(root)
        # Non-ASCII characters become character references, so the declared encoding holds
        # whatever encoding `out` really uses.
        body = ET.tostring(root, encoding="us-ascii", xml_declaration=False).decode("ascii")
        out.write('<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n")
