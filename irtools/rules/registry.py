"""The rule catalogue: stable codes, names, default severities and documentation."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from irtools.errors import UsageError
from irtools.findings import Finding, Severity

from irtools.rules.context import DEFAULT_SEVERITY, CheckContext

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex

__all__ = ["RULES", "Check", "Rule", "UsageError", "parse_severity_overrides", "register", "resolve_selection", "rule"]

Check = Callable[["IRIndex", CheckContext], Iterator[Finding]]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: a permanent code, a short name, a default severity and its documentation."""

    code: str
    name: str
    severity: Severity
    doc: str
    check: Check | None = None

    @property
    def summary(self) -> str:
        """First line of the documentation."""
        return self.doc.splitlines()[0] if self.doc else self.name

    @property
    def family(self) -> str:
        return _FAMILIES.get(self.code[:4], "other")


_FAMILIES = {
    "GIR1": "loading and schema",
    "GIR2": "transfer graph",
    "GIR3": "L2 buffer",
    "GIR4": "WL0 buffer",
    "GIR5": "schedule",
    "GIR6": "measured trace",
}

RULES: dict[str, Rule] = {}


def register(code: str, name: str, severity: Severity, doc: str, check: Check | None = None) -> Rule:
    """Add a rule to RULES; codes are permanent and never reused."""
    if code in RULES:
        raise ValueError(f"rule code {code} registered twice")
    entry = Rule(code, name, severity, inspect.cleandoc(doc), check)
    RULES[code] = entry
    DEFAULT_SEVERITY[code] = severity
    return entry


def rule(code: str, name: str, severity: Severity) -> Callable[[Check], Check]:
    """Decorator: register a check function; its docstring is the rule's documentation."""

    def decorate(fn: Check) -> Check:
        register(code, name, severity, fn.__doc__ or "", fn)
        return fn

    return decorate


def resolve_selection(select: Iterable[str] | None, ignore: Iterable[str] | None) -> frozenset[str]:
    """Codes enabled by --select/--ignore; codes or prefixes, the longer prefix wins."""
    select = list(select or ["GIR"])
    ignore = list(ignore or [])
    for flag, selectors in (("--select", select), ("--ignore", ignore)):
        for selector in selectors:
            if not any(code.startswith(selector.upper()) for code in RULES):
                raise UsageError(f"{flag}: unknown rule code or prefix {selector!r} (see `irtools rules`)")
    enabled = set()
    for code in RULES:
        best_select = max((len(s) for s in select if code.startswith(s.upper())), default=-1)
        best_ignore = max((len(s) for s in ignore if code.startswith(s.upper())), default=-1)
        if best_select > best_ignore:
            enabled.add(code)
    return frozenset(enabled)


def parse_severity_overrides(items: Iterable[str]) -> dict[str, Severity]:
    """Parse `CODE=error|warning|info` items given with --severity."""
    overrides: dict[str, Severity] = {}
    for item in items:
        code, sep, level = item.partition("=")
        code = code.strip().upper()
        if not sep or code not in RULES:
            raise UsageError(f"--severity: expected CODE=error|warning|info with a known code, got {item!r}")
        try:
            overrides[code] = Severity(level.strip().lower())
        except ValueError:
            raise UsageError(f"--severity: unknown severity {level!r} (error, warning or info)") from None
    return overrides
