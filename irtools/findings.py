"""Findings and reports: the only types reporters see."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from irtools.pointer import sort_key


class Severity(str, enum.Enum):
    """How bad a finding is; ordered error > warning > info."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        """Order of severity: info 0, warning 1, error 2."""
        return _RANK[self]


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in one file, located by an RFC 6901 pointer into the file as written."""

    code: str
    severity: Severity
    message: str
    pointer: str = ""
    core_id: int | None = None
    workload_id: int | None = None
    transfer_id: int | None = None
    line: int | None = None
    column: int | None = None
    related: tuple[str, ...] = ()
    fingerprint: str | None = None
    """Stable across edits that move lines (irtools.baseline); set by the command line, not by the rules."""

    def sort_key(self) -> tuple[object, ...]:
        """Output order within a file: pointer (numeric segments as ints), then code, then message."""
        return (sort_key(self.pointer), self.code, self.message)

    def to_row(self) -> dict[str, str | int | None]:
        """The JSON contract's keys (code, severity, message, pointer, core/workload/transfer ids): one
        finding as the JSON report, the sweep's findings table and the dashboard's findings table hold it."""
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "pointer": self.pointer,
            "core_id": self.core_id,
            "workload_id": self.workload_id,
            "transfer_id": self.transfer_id,
        }


@dataclass(slots=True)
class FileReport:
    """All findings of one file, sorted."""

    path: str
    findings: list[Finding] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.findings.sort(key=Finding.sort_key)

    def count(self, severity: Severity) -> int:
        """How many of the file's findings have this severity."""
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def errors(self) -> int:
        """The file's error-severity findings."""
        return self.count(Severity.ERROR)

    @property
    def warnings(self) -> int:
        """The file's warning-severity findings."""
        return self.count(Severity.WARNING)


@dataclass(slots=True)
class Report:
    """The outcome of validating several files, sorted by path."""

    files: list[FileReport]

    def __post_init__(self) -> None:
        self.files.sort(key=lambda f: f.path)

    @property
    def errors(self) -> int:
        """Error-severity findings in all files."""
        return sum(f.errors for f in self.files)

    @property
    def warnings(self) -> int:
        """Warning-severity findings in all files."""
        return sum(f.warnings for f in self.files)
