"""Measured ZeBu instruction traces: the reader (GIR60x findings) and the join to the IR (GIR61x)."""

from irtools.analysis.measured_tables import MEASURED_TABLES
from irtools.trace.discover import discover_trace
from irtools.trace.join import Measured, measure
from irtools.trace.reader import QUEUES, Instruction, Trace, parse_trace, read_trace
from irtools.trace.summary import MeasuredSummary

__all__ = [
    "MEASURED_TABLES",
    "QUEUES",
    "Instruction",
    "Measured",
    "MeasuredSummary",
    "Trace",
    "discover_trace",
    "measure",
    "parse_trace",
    "read_trace",
]
