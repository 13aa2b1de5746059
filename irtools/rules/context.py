"""What a check needs besides the IR: user options and a way to make findings."""

from __future__ import annotations

from dataclasses import dataclass, field

from irtools.findings import Finding, Severity


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """User options that switch rules on or parameterize them."""

    wl0_size: int | None = None
    """WL0 capacity in bytes (enables GIR402)."""
    addr_align: int | None = None
    """Required L2 address alignment in bytes (enables GIR308)."""
    severities: dict[str, Severity] = field(default_factory=dict)
    """Per-code severity overrides."""


@dataclass(slots=True)
class CheckContext:
    """Options plus the finding factory every check uses."""

    options: CheckOptions = field(default_factory=CheckOptions)

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
        from irtools.rules.registry import RULES

        level = severity or RULES[code].severity
        return Finding(code, level, message, pointer, core_id, workload_id, transfer_id, related=related)
