"""A sweep run to files: the rows table and the findings table, streamed, committed whole or partial."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from irtools.sweep.engine import Sweep, SweepCounts, manifest_dtypes
from irtools.sweep.output import TableStream
from irtools.sweep.row import SWEEP, SWEEP_FINDINGS


def write_sweep(
    sweep: Sweep,
    pool_context: Any,
    output: str | os.PathLike[str],
    findings_output: str | os.PathLike[str],
    progress: Callable[[int, int], None] | None = None,
    excel_safe: bool = False,
) -> SweepCounts:
    """Run `sweep`, streaming rows to `output` and findings to `findings_output` (CSV or Parquet by suffix).

    Complete: both files sorted by path. Ctrl-C: both files hold what was done (marked in the counts as
    interrupted), then KeyboardInterrupt propagates. Any other error: the old files stay, no temp is left.
    `excel_safe`: CSV text cells through `spreadsheet_safe` (as `analyze --excel-safe`).
    """
    rows = TableStream(output, SWEEP.dtypes | manifest_dtypes(sweep.manifest), excel_safe)
    try:
        findings = TableStream(findings_output, SWEEP_FINDINGS.dtypes, excel_safe)
    except BaseException:
        rows.abort()
        raise
    streams = (rows, findings)

    def sink(new_rows: list[dict[str, Any]], new_findings: list[dict[str, Any]]) -> None:
        rows.append(new_rows)
        findings.append(new_findings)

    try:
        try:
            sweep.run(pool_context, sink, progress)
        except KeyboardInterrupt:
            sweep.counts.interrupted = True
            for stream in streams:
                stream.commit(sort=False)
            raise
        for stream in streams:
            stream.commit(sort=True)
    finally:
        for stream in streams:
            stream.abort()  # no-op for a committed stream; removes the temp of one that was not
    return sweep.counts


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file once resolved (-o and --findings must differ)."""
    return Path(a).resolve() == Path(b).resolve()
