"""Baselines: "fail only on findings that are new".

JSON has no comments, so an IR file cannot carry an inline `noqa`; a baseline file lists the findings a
team has accepted, by fingerprint (irtools.fingerprint), and a run with it reports only the others.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irtools import __version__
from irtools.atomic import write_text_atomic
from irtools.config import relative_path
from irtools.findings import FileReport, Report
from irtools.fingerprint import file_fingerprints
from irtools.rules.registry import UsageError

BASELINE_VERSION = 1


def _relative(file_report: FileReport, roots: Mapping[str, Path]) -> str:
    return relative_path(file_report.path, roots.get(file_report.path, Path.cwd()))


def fingerprinted(report: Report, roots: Mapping[str, Path]) -> Report:
    """`report` with each finding's fingerprint set; `roots` maps a file's path to its project root."""
    files = []
    for file_report in report.files:
        prints = file_fingerprints(file_report.findings, _relative(file_report, roots))
        findings = [dataclasses.replace(f, fingerprint=p) for f, p in zip(file_report.findings, prints)]
        files.append(FileReport(file_report.path, findings))
    return Report(files)


def write(path: str, report: Report, roots: Mapping[str, Path]) -> str:
    """Record every finding of `report` (fingerprinted) in a baseline file; returns what was written."""
    entries = [
        {
            "fingerprint": finding.fingerprint,
            "code": finding.code,
            "path": _relative(file_report, roots),
            "pointer": finding.pointer,
            "message": finding.message,
        }
        for file_report in report.files
        for finding in file_report.findings
    ]
    entries.sort(key=lambda e: (e["path"], e["pointer"], e["code"], e["fingerprint"]))
    document = {"version": BASELINE_VERSION, "tool": f"irtools {__version__}", "findings": entries}
    write_text_atomic(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    return f"{len(entries)} finding{'' if len(entries) == 1 else 's'} ({len(report.files)} files)"


def read(path: str) -> list[dict[str, Any]]:
    """The entries of a baseline file; a usage error when it is missing or not one."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"baseline {path}: no such file (create it with --write-baseline {path})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"baseline {path}: cannot read it: {exc}") from None
    entries = document.get("findings") if isinstance(document, dict) else None
    if (
        not isinstance(document, dict)
        or document.get("version") != BASELINE_VERSION
        or not isinstance(entries, list)
        or not all(isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries)
    ):
        raise UsageError(f"baseline {path}: not an irtools baseline (version {BASELINE_VERSION})")
    return entries


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a baseline did to a run: findings it hid, and its entries that no longer occur."""

    path: str
    suppressed: int
    gone: int

    def __str__(self) -> str:
        text = f"baseline {self.path}: {self.suppressed} known finding{'' if self.suppressed == 1 else 's'} not shown"
        if self.gone:
            text += (
                f"; {self.gone} baselined finding{' no longer occurs' if self.gone == 1 else 's no longer occur'}"
                f" (prune with --write-baseline {self.path})"
            )
        return text


def apply(
    path: str, report: Report, roots: Mapping[str, Path], root: Path, shown: str | None = None
) -> tuple[Report, Outcome]:
    """Keep only the findings of a fingerprinted `report` that the baseline does not list.

    An entry counts as gone when its file was checked in this run without it, or no longer exists below
    `root` (the run's project root); pre-commit passes only the staged files, so others are left alone.
    """
    entries = read(path)
    known = {e["fingerprint"] for e in entries}
    checked = {_relative(f, roots) for f in report.files}
    seen: set[str] = set()
    files = []
    suppressed = 0
    for file_report in report.files:
        new = [f for f in file_report.findings if f.fingerprint not in known]
        suppressed += len(file_report.findings) - len(new)
        seen.update(f.fingerprint for f in file_report.findings if f.fingerprint)
        files.append(FileReport(file_report.path, new))
    gone = sum(
        1
        for e in entries
        if e["fingerprint"] not in seen
        and (e.get("path") in checked or not (root / str(e.get("path", ""))).exists())
    )
    return Report(files), Outcome(shown or path, suppressed, gone)
