"""`--statistics`: how many findings of each code and severity, most frequent first (as ruff prints them)."""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from irtools.findings import Report, Severity
from irtools.report.base import rule_name
from irtools.report.text import plural


def statistics(report: Report) -> list[tuple[int, str, Severity]]:
    """(count, code, severity) rows: by count, most first, then code and severity (error first)."""
    counts = Counter((f.code, f.severity) for file_report in report.files for f in file_report.findings)
    return sorted(
        ((n, code, severity) for (code, severity), n in counts.items()),
        key=lambda row: (-row[0], row[1], -row[2].rank),
    )


def render_statistics(report: Report, out: TextIO, as_json: bool = False) -> None:
    """Text: one `count  code  severity  name` row each, then the total; JSON: a list of rows."""
    rows = statistics(report)
    if as_json:
        data = [
            {"code": code, "name": rule_name(code), "severity": severity.value, "count": n}
            for n, code, severity in rows
        ]
        out.write(json.dumps(data, indent=2) + "\n")
        return
    width = len(str(rows[0][0])) if rows else 1
    out.writelines(
        f"{n:>{width}}  {code}  {severity.value:<7}  {rule_name(code)}\n" for n, code, severity in rows
    )
    total = sum(row[0] for row in rows)
    out.write(f"{plural(total, 'finding')} in {plural(len(report.files), 'file')}\n")
