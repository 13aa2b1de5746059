"""`--trace TRACE` for the commands that compare an IR with its measured ZeBu trace."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from irtools.errors import AnalysisError

if TYPE_CHECKING:
    from irtools.analysis import Analysis
    from irtools.findings import Finding
    from irtools.trace import Measured


def add_trace_argument(parser: argparse.ArgumentParser, discovered: bool = False) -> None:
    """Add --trace (the ZeBu trace to join) to a command; `discovered` says one is found beside the IR
    without it."""
    note = (
        "; default: <stem>_sim.txt beside the IR or in a zebu/ folder beside its folder" if discovered else ""
    )
    parser.add_argument(
        "--trace",
        metavar="TRACE",
        help=f"the ZeBu instruction trace measured for this IR (join: estimated vs measured){note}",
    )


def trace_for(ir_path: str, explicit: str | None) -> str | None:
    """`--trace` when given (it must exist), else the trace discovered beside the IR, if any."""
    from irtools.rules.registry import UsageError
    from irtools.trace import discover_trace

    if explicit is not None:
        if not Path(explicit).is_file():
            raise UsageError(f"--trace: {explicit} is not a file")
        return explicit
    found = discover_trace(ir_path)
    return str(found) if found else None


def load_measured(analysis: Analysis, trace_path: str) -> Measured:
    """Read the trace and join it; AnalysisError (exit 1) when it holds no instruction at all."""
    from irtools.trace import measure, read_trace

    trace = read_trace(trace_path)
    if not trace.instructions:
        first = trace.findings[0].message if trace.findings else "no instruction"
        raise AnalysisError(f"{trace_path}: not a ZeBu trace: {first}")
    return measure(analysis, trace)


def finding_line(path: str, finding: Finding) -> str:
    """`path:line: CODE severity message`, as `validate` prints its findings."""
    where = f"{path}:{finding.line}" if finding.line else path
    workload = f" (workload {finding.workload_id})" if finding.workload_id is not None else ""
    return f"{where}: {finding.code} {finding.severity.value} {finding.message}{workload}"


def print_measured(measured: Measured, out: TextIO | None = None) -> None:
    """The measured summary and every trace finding (on stdout unless `out` is given)."""
    out = out or sys.stdout
    out.write(measured.summary().render())
    out.writelines(finding_line(measured.trace.path, f) + "\n" for f in measured.findings)
