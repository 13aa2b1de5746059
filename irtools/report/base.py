"""The reporter protocol and the helpers every output format shares."""

from __future__ import annotations

from typing import Protocol, TextIO

from irtools.findings import Report
from irtools.rules.registry import RULES


class Reporter(Protocol):
    """Writes a whole Report to a text stream in one output format."""

    def render(self, report: Report, out: TextIO) -> None:
        """Write `report` to `out`."""
        ...


def rule_name(code: str) -> str:
    """The rule's short name, or the code itself when the code is not registered."""
    entry = RULES.get(code)
    return entry.name if entry is not None else code
