"""The rules; importing this package registers every rule in RULES (in code order, see the registry).

One module per rule under its family's package (transfers GIR2xx, l2 GIR3xx, wl0 GIR4xx, schedule
GIR5xx), holding its reference check, its screen and its dialect variants; `loading` (GIR1xx) and
`trace` (GIR6xx) catalogue the codes that the loader and the trace reader find. docs/rules.md says
what adding a rule touches.
"""

from irtools.findings import Severity
from irtools.rules import l2, loading, schedule, trace, transfers, wl0
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

__all__ = ["RULES", "l2", "loading", "schedule", "trace", "transfers", "wl0"]
