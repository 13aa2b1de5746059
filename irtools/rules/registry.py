"""The rule catalogue: stable codes, names, default severities and documentation."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from irtools.dialects.base import Capability
from irtools.errors import UsageError
from irtools.findings import Finding, Severity
from irtools.rules.context import DEFAULT_SEVERITY, CheckContext

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex

__all__ = [
    "RULES",
    "Check",
    "Rule",
    "UsageError",
    "Variant",
    "parse_severity_overrides",
    "register",
    "resolve_selection",
    "rule",
    "skipped_note",
    "variant",
]

Check = Callable[["IRIndex", CheckContext], Iterator[Finding]]


@dataclass(frozen=True, slots=True)
class Variant:
    """A form of a rule for files that hold more (or other) facts than its main form reads."""

    needs: frozenset[Capability]
    check: Check


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: a permanent code, a short name, a default severity and its documentation.

    `needs` are the capabilities its main form reads; a file whose dialect lacks one gets the
    variant whose needs it has (the most specific), or none: the rule is skipped there, and said so.
    """

    code: str
    name: str
    severity: Severity
    doc: str
    check: Check | None = None
    needs: frozenset[Capability] = frozenset()
    variants: tuple[Variant, ...] = ()

    def check_for(self, capabilities: Collection[Capability]) -> Check | None:
        """The form of the check that runs on a file with these capabilities, None if none can."""
        fitting = [v for v in self.variants if v.needs.issubset(capabilities)]
        if fitting:
            return max(fitting, key=lambda v: len(v.needs)).check
        return self.check if self.needs.issubset(capabilities) else None

    def missing(self, capabilities: Collection[Capability]) -> frozenset[Capability]:
        """The least that a file with these capabilities lacks for some form of the rule to run."""
        forms = (self.needs, *(v.needs for v in self.variants))
        return min((needs.difference(capabilities) for needs in forms), key=len)

    @property
    def summary(self) -> str:
        """First line of the documentation."""
        return self.doc.splitlines()[0] if self.doc else self.name

    @property
    def family(self) -> str:
        """The rule's family by its code's hundreds digit: transfer graph, L2 buffer, WL0 buffer, ..."""
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


def register(
    code: str,
    name: str,
    severity: Severity,
    doc: str,
    check: Check | None = None,
    needs: Iterable[Capability] = (),
) -> Rule:
    """Add a rule to RULES; codes are permanent and never reused."""
    if code in RULES:
        raise ValueError(f"rule code {code} registered twice")
    entry = Rule(code, name, severity, inspect.cleandoc(doc), check, frozenset(needs))
    RULES[code] = entry
    DEFAULT_SEVERITY[code] = severity
    return entry


def rule(
    code: str, name: str, severity: Severity, needs: Iterable[Capability] = ()
) -> Callable[[Check], Check]:
    """Decorator: register a check function; its docstring is the rule's documentation."""

    def decorate(fn: Check) -> Check:
        register(code, name, severity, fn.__doc__ or "", fn, needs)
        return fn

    return decorate


def variant(code: str, needs: Iterable[Capability]) -> Callable[[Check], Check]:
    """Decorator: another form of the registered rule `code`, for files with the capabilities `needs`.

    Its documentation is the rule's own (say there what each form reads).
    """

    def decorate(fn: Check) -> Check:
        entry = RULES[code]
        RULES[code] = dataclasses.replace(entry, variants=(*entry.variants, Variant(frozenset(needs), fn)))
        return fn

    return decorate


def skipped_note(capabilities: Collection[Capability], dialect: str) -> str | None:
    """The one message naming the rules that cannot run on a file with these capabilities, and why."""
    by_need: dict[str, list[str]] = {}
    for entry in RULES.values():
        if entry.check is not None and entry.check_for(capabilities) is None:
            need = " and ".join(sorted(entry.missing(capabilities)))
            by_need.setdefault(need, []).append(entry.code)
    if not by_need:
        return None
    reasons = "; ".join(
        f"{', '.join(codes)} need{'s' if len(codes) == 1 else ''} {need}" for need, codes in by_need.items()
    )
    return f"rules skipped on the {dialect} dialect, which has no such data: {reasons}"


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
