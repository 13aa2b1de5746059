"""Plain text: one `path:location: CODE severity message` line per finding, then a summary."""

from __future__ import annotations

import re
from typing import TextIO

from irtools.findings import Finding, Report, Severity

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or f"\\x{ord(char):02x}"


def terminal_safe(text: str) -> str:
    """`text` with every control character escaped (`\\r`, `\\n`, `\\t`, `\\x1b`): one inert line."""
    return _CONTROL.sub(_escape, text)


def plural(count: int, noun: str) -> str:
    """`1 error`, `0 errors`, `2 errors`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def summary_line(report: Report) -> str:
    """`N file(s) checked: E error(s), W warning(s), I info`, pluralised."""
    infos = sum(f.count(Severity.INFO) for f in report.files)
    return (
        f"{plural(len(report.files), 'file')} checked: "
        f"{plural(report.errors, 'error')}, {plural(report.warnings, 'warning')}, {infos} info"
    )


def location(path: str, finding: Finding) -> str:
    """`path:line:column` for findings with a source position, else `path:pointer` (`/` for the whole file)."""
    if finding.line is not None:
        column = finding.column if finding.column is not None else 1
        return f"{path}:{finding.line}:{column}"
    return f"{path}:{finding.pointer or '/'}"


def finding_line(path: str, finding: Finding) -> str:
    """One finding as a single text line: `path:line:column: CODE severity message (at pointer; see ...)`.

    Editors and terminals open `path:line:column`; the pointer follows the message, as in the GitHub
    annotations (a finding without a position shows `path:pointer` instead and does not repeat it).
    """
    notes = []
    if finding.line is not None and finding.pointer:
        notes.append(f"at {finding.pointer}")
    if finding.related:
        notes.append(f"see {', '.join(finding.related)}")
    line = f"{location(path, finding)}: {finding.code} {finding.severity.value} {finding.message}"
    # CI scripts read one finding per line, and a terminal must not act on one: messages quote layer
    # names and pointers quote keys from the file, so line breaks, escape sequences and every other
    # control character are escaped.
    return terminal_safe(f"{line} ({'; '.join(notes)})" if notes else line)


class TextReporter:
    """Human-readable lines, grep-friendly, ending with a summary line."""

    def render(self, report: Report, out: TextIO) -> None:
        """Write one line per finding and the summary line."""
        for file_report in report.files:
            out.writelines(finding_line(file_report.path, finding) + "\n" for finding in file_report.findings)
        out.write(summary_line(report) + "\n")
