"""The rules; importing this package registers every rule in RULES."""

from irtools.findings import Severity
from irtools.rules import buffers, capacity, ordering, raw_checks, schema_errors, trace, transfers, wl0
from irtools.rules.registry import RULES, register

register(
    "GIR001",
    "internal-error",
    Severity.ERROR,
    """A rule crashed on this file: a bug in irtools, not necessarily in the IR.

    Why: one broken rule must not hide the findings of the others.
    Fix: report it with the file; meanwhile `--ignore` the crashing rule's code.
    """,
)

__all__ = [
    "RULES",
    "buffers",
    "capacity",
    "ordering",
    "raw_checks",
    "schema_errors",
    "trace",
    "transfers",
    "wl0",
]
