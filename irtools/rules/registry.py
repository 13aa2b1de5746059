"""The rule catalogue (stable codes, names, default severities, documentation) and how a rule runs.

Each rule module declares its reference check with `@rule(..., screen=...)`; the registry runs the
screen, then the check on the workloads it flags, or the check alone when the reference core is on
(irtools.reference: a ContextVar, kept below every package since the readers consult it too).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from irtools import reference
from irtools.dialects.base import Capability
from irtools.errors import UsageError
from irtools.findings import Finding, Severity
from irtools.rules.context import DEFAULT_SEVERITY, CheckContext

if TYPE_CHECKING:
    from irtools.loading.index import IRIndex

__all__ = [
    "RULES",
    "Check",
    "Form",
    "Rule",
    "Screen",
    "Step",
    "UsageError",
    "also",
    "parse_severity_overrides",
    "register",
    "resolve_selection",
    "rule",
    "skipped_note",
    "variant",
]

Check = Callable[["IRIndex", CheckContext], Iterator[Finding]]
"""A rule's reference check: every finding of the rule on the workloads `IRIndex.workloads()` walks."""

Screen = Callable[["IRIndex"], "list[int] | None"]
"""Which workloads may hold a finding, from whole-file columns: sorted rows of `IRIndex.rows`, a superset
of the rows of the reference check's findings, or None when the columns cannot tell (then all)."""

C = TypeVar("C", bound=Check)


@dataclass(frozen=True, slots=True)
class Step:
    """One reference check of a rule and the screen that narrows the workloads it looks at.

    With `whole_file`, the check reads whole cores or the whole file (state carried from snapshot to
    snapshot, a graph): it runs on the whole file when the screen flags anything, and not at all when
    it flags nothing. Otherwise it runs on the flagged workloads only (`loading.boxes.only`: every other
    lookup of the index still sees the whole file, and DRAM entries are always checked).

    With `per_core`, the check and its screen read one core at a time (its workloads, the file's top-level
    numbers and capabilities; never another core, the DRAM section, the mesh's numbering or a state kept
    from core to core): its findings on a file are the union of its findings on each core alone.
    `irtools validate` then runs it on each core as the core is read, and drops the core's snapshots
    before reading the next (irtools.streaming); the other steps run on the whole file once it is read.
    """

    check: Check
    screen: Screen | None = None
    whole_file: bool = False
    per_core: bool = False

    def run(self, ir: IRIndex, ctx: CheckContext) -> Iterator[Finding]:
        """The check's findings: screened, unless the reference core is on (irtools.reference)."""
        if self.screen is None or reference.active():
            return self.check(ir, ctx)
        rows = self.screen(ir)
        if rows is None:
            return self.check(ir, ctx)
        if self.whole_file:
            return self.check(ir, ctx) if rows else iter(())
        from irtools.loading.boxes import only  # numpy, loaded only when a file is checked

        return self.check(only(ir, rows), ctx)


@dataclass(frozen=True, slots=True)
class Form:
    """A form of a rule: the capabilities it reads and its steps, run in order."""

    needs: frozenset[Capability]
    steps: tuple[Step, ...]

    def run(self, ir: IRIndex, ctx: CheckContext, per_core: bool | None = None) -> Iterator[Finding]:
        """Every step's findings, each screened (what `irtools validate` runs); with `per_core` True or
        False, only the steps that read one core at a time, or only the others."""
        for step in self.steps:
            if per_core is None or step.per_core is per_core:
                yield from step.run(ir, ctx)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: a permanent code, a short name, a default severity and its documentation.

    `main` is its form for the documented format; a file whose dialect lacks one of its `needs` gets
    the variant whose needs it has (the most specific), or none: the rule is skipped there, and said so.
    A rule without a form is found elsewhere (the loader, the trace reader) and only catalogued here.
    """

    code: str
    name: str
    severity: Severity
    doc: str
    main: Form | None = None
    variants: tuple[Form, ...] = ()

    @property
    def check(self) -> Check | None:
        """The main form's (first) reference check, whose docstring is the rule's documentation."""
        return self.main.steps[0].check if self.main else None

    @property
    def needs(self) -> frozenset[Capability]:
        """The capabilities the main form reads."""
        return self.main.needs if self.main else frozenset()

    def form_for(self, capabilities: Collection[Capability]) -> Form | None:
        """The form of the rule that runs on a file with these capabilities, None if none can."""
        fitting = [v for v in self.variants if v.needs.issubset(capabilities)]
        if fitting:
            return max(fitting, key=lambda v: len(v.needs))
        return self.main if self.main is not None and self.main.needs.issubset(capabilities) else None

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
"""Every rule by code, in code order: the order the checks run in and GIR103's skipped note names them."""


def register(
    code: str,
    name: str,
    severity: Severity,
    doc: str,
    check: Check | None = None,
    needs: Iterable[Capability] = (),
    screen: Screen | None = None,
    whole_file: bool = False,
    per_core: bool = False,
) -> Rule:
    """Add a rule to RULES; codes are permanent and never reused."""
    if code in RULES:
        raise ValueError(f"rule code {code} registered twice")
    main = None if check is None else Form(frozenset(needs), (Step(check, screen, whole_file, per_core),))
    entry = Rule(code, name, severity, inspect.cleandoc(doc), main)
    RULES[code] = entry
    for later in [c for c in RULES if c > code]:  # code order, whatever order the rule files load in
        RULES[later] = RULES.pop(later)
    DEFAULT_SEVERITY[code] = severity
    return entry


def rule(
    code: str,
    name: str,
    severity: Severity,
    needs: Iterable[Capability] = (),
    screen: Screen | None = None,
    whole_file: bool = False,
    per_core: bool = False,
) -> Callable[[C], C]:
    """Decorator: register a rule's reference check, its docstring the rule's documentation.

    `screen` narrows the workloads the check looks at (see Step); the registry runs it, then the check.
    `per_core`: the check reads one core at a time (see Step).
    """

    def decorate(fn: C) -> C:
        register(code, name, severity, fn.__doc__ or "", fn, needs, screen, whole_file, per_core)
        return fn

    return decorate


def also(
    code: str, screen: Screen | None = None, whole_file: bool = False, per_core: bool = False
) -> Callable[[C], C]:
    """Decorator: another step of the registered rule `code`'s main form, run after its others (a part
    of the rule that needs a screen of its own: DRAM entries, say, which are no workload rows)."""

    def decorate(fn: C) -> C:
        entry = RULES[code]
        assert entry.main is not None, f"{code} has no check to add to"
        main = dataclasses.replace(
            entry.main, steps=(*entry.main.steps, Step(fn, screen, whole_file, per_core))
        )
        RULES[code] = dataclasses.replace(entry, main=main)
        return fn

    return decorate


def variant(
    code: str,
    needs: Iterable[Capability],
    screen: Screen | None = None,
    whole_file: bool = False,
    plus_main: bool = False,
    per_core: bool = False,
) -> Callable[[C], C]:
    """Decorator: another form of the registered rule `code`, for files with the capabilities `needs`.

    With `plus_main`, the main form's steps run after this one (a file holding both kinds of facts).
    Its documentation is the rule's own (say there what each form reads).
    """

    def decorate(fn: C) -> C:
        entry = RULES[code]
        steps: tuple[Step, ...] = (Step(fn, screen, whole_file, per_core),)
        if plus_main:
            assert entry.main is not None, f"{code} has no main form"
            steps += entry.main.steps
        form = Form(frozenset(needs), steps)
        RULES[code] = dataclasses.replace(entry, variants=(*entry.variants, form))
        return fn

    return decorate


def skipped_note(capabilities: Collection[Capability], dialect: str) -> str | None:
    """The one message naming the rules that cannot run on a file with these capabilities, and why."""
    by_need: dict[str, list[str]] = {}
    for entry in RULES.values():
        if entry.main is not None and entry.form_for(capabilities) is None:
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
