"""Measured columns of `irtools summarize`: filled when a trace sits beside the IR (see discover)."""

from __future__ import annotations

from typing import Any

from irtools.analysis.analysis import Analysis
from irtools.analysis.tables import Column
from irtools.trace.discover import discover_trace
from irtools.trace.join import measure
from irtools.trace.reader import read_trace

SWEEP_COLUMNS = (
    Column("trace", "str", "", "The ZeBu trace found for the IR (<stem>_sim.txt); empty when none."),
    Column("measured_makespan", "Int64", "cycles", "End of the trace's last instruction."),
    Column("measured_ratio", "float64", "ratio", "measured_makespan / sum of core 0's estimated time."),
    Column("compute_idle_share", "float64", "fraction", "Share of the measured run no compute queue runs."),
    Column("trace_errors", "Int64", "", "Error findings of the trace and its join (GIR6xx)."),
)


def measured_columns(analysis: Analysis, ir_path: str) -> dict[str, Any]:
    """The measured columns for one IR; all empty without a trace, the error count alone for an unreadable one."""
    row: dict[str, Any] = dict.fromkeys(c.name for c in SWEEP_COLUMNS)
    path = discover_trace(ir_path)
    if path is None:
        return row
    row["trace"] = str(path)
    try:
        trace = read_trace(path)
    except OSError:
        row["trace_errors"] = 1
        return row
    measured = measure(analysis, trace)
    summary = measured.summary()
    row["trace_errors"] = summary.errors
    if trace.instructions:
        row.update(
            measured_makespan=summary.measured_makespan,
            measured_ratio=summary.ratio,
            compute_idle_share=summary.idle_share,
        )
    return row
