"""What a check needs besides the IR: user options and a way to make findings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from irtools.findings import Finding, Severity
from irtools.options import RunOptions

DEFAULT_SEVERITY: dict[str, Severity] = {}
"""Each registered code's own severity, filled by irtools.rules.registry.register."""


CheckOptions = RunOptions
"""The options a check reads: the run's whole options (irtools.options.RunOptions), under its former name."""


@dataclass(slots=True)
class CheckContext:
    """Options plus the finding factory every check uses."""

    options: RunOptions = field(default_factory=RunOptions)

    def finding(
        self,
        code: str,
        message: str,
        pointer: str,
        *,
        core_id: int | None = None,
        workload_id: int | None = None,
        transfer_id: int | None = None,
        related: tuple[str, ...] = (),
        severity: Severity | None = None,
    ) -> Finding:
        """A finding with the rule's default severity (user overrides are applied once, in validate_file)."""
        level = severity or DEFAULT_SEVERITY[code]
        return Finding(code, level, message, pointer, core_id, workload_id, transfer_id, related=related)


MESSAGE_IDS = 16
MESSAGE_TEXT = 80
"""Messages spell out at most this many ids and characters of a name: one tensor or layer can be named
by thousands of findings, and repeating an unbounded list in each would grow the report quadratically."""


def id_list(ids: Sequence[int], sep: str = ",") -> str:
    """`ids` joined by `sep`, the ones past MESSAGE_IDS counted instead of listed."""
    shown = sep.join(str(i) for i in ids[:MESSAGE_IDS])
    return shown if len(ids) <= MESSAGE_IDS else f"{shown}{sep}... ({len(ids) - MESSAGE_IDS} more)"


def short(text: str) -> str:
    """`text` cut to MESSAGE_TEXT characters."""
    return text if len(text) <= MESSAGE_TEXT else text[: MESSAGE_TEXT - 3] + "..."
