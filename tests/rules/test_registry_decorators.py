"""What `@rule`, `@also` and `@variant` register, called at test time on a throwaway code.

The rule modules call these decorators once, at import, so a break in them would only show in how
every rule runs; here each is called on GIR999 and the registered forms are compared with what was
declared: the check, its screen, `whole_file`, the needs, and the order of the steps.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from irtools.dialects.base import Capability
from irtools.findings import Finding, Severity
from irtools.rules.context import DEFAULT_SEVERITY, CheckContext
from irtools.rules.registry import RULES, Form, Step, also, rule, variant

CODE = "GIR999"


@pytest.fixture
def scratch() -> Iterator[None]:
    """RULES and the default severities as they were, whatever the test registered."""
    rules, severities = dict(RULES), dict(DEFAULT_SEVERITY)
    yield
    RULES.clear()
    RULES.update(rules)
    DEFAULT_SEVERITY.clear()
    DEFAULT_SEVERITY.update(severities)


def _check(ir: Any, ctx: CheckContext) -> Iterator[Finding]:
    """A scratch rule's check.

    Its second paragraph.
    """
    yield from ()


def _dram_part(ir: Any, ctx: CheckContext) -> Iterator[Finding]:
    yield from ()


def _raw_form(ir: Any, ctx: CheckContext) -> Iterator[Finding]:
    yield from ()


def _screen(ir: Any) -> list[int] | None:
    return None


def _other_screen(ir: Any) -> list[int] | None:
    return []


def test_rule_registers_its_check_screen_needs_and_documentation(scratch: None) -> None:
    returned = rule(
        CODE, "scratch", Severity.WARNING, needs={Capability.L2_SIZE}, screen=_screen, whole_file=True
    )(_check)
    assert returned is _check
    entry = RULES[CODE]
    assert (entry.code, entry.name, entry.severity) == (CODE, "scratch", Severity.WARNING)
    assert entry.doc == "A scratch rule's check.\n\nIts second paragraph."
    assert entry.main == Form(frozenset({Capability.L2_SIZE}), (Step(_check, _screen, True),))
    assert entry.variants == ()
    assert DEFAULT_SEVERITY[CODE] is Severity.WARNING
    assert list(RULES)[-1] == CODE  # code order


def test_also_appends_a_step_with_its_own_screen(scratch: None) -> None:
    rule(CODE, "scratch", Severity.ERROR, screen=_screen)(_check)
    also(CODE, screen=_other_screen, whole_file=True)(_dram_part)
    main = RULES[CODE].main
    assert main == Form(frozenset(), (Step(_check, _screen, False), Step(_dram_part, _other_screen, True)))
    assert RULES[CODE].name == "scratch"


@pytest.mark.parametrize("plus_main", [False, True])
def test_variant_adds_a_form_run_before_the_main_steps_when_asked(scratch: None, plus_main: bool) -> None:
    rule(CODE, "scratch", Severity.ERROR, needs={Capability.L2_ADDRESSES}, screen=_screen)(_check)
    needs = {Capability.BLOCK_COUNTS, Capability.L2_SIZE}
    variant(CODE, needs, screen=_other_screen, whole_file=True, plus_main=plus_main)(_raw_form)
    entry = RULES[CODE]
    own = Step(_raw_form, _other_screen, True)
    main = Step(_check, _screen, False)
    assert entry.variants == (Form(frozenset(needs), (own, main) if plus_main else (own,)),)
    assert entry.main == Form(frozenset({Capability.L2_ADDRESSES}), (main,))
    assert entry.form_for({*needs, Capability.RING_REGIONS}) == entry.variants[0]
    assert entry.form_for({Capability.L2_ADDRESSES}) == entry.main
