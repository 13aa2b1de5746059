"""Each rule's screen keeps every workload its reference check reports: on synth IRs of every dialect with
injected defects and on fuzzed ones, the rows a screen flags include the workload row of every finding
the rule's reference check gives on the whole file (and a whole-file screen that flags nothing leaves the
check nothing to find). A screen that dropped one would lose that finding on the fast core only.

Inputs stay small (synth meshes of at most 2x2 cores and 14 layers, fuzzed samples and 3-workload slices
of the real files), so no example can take the machine's memory (issue 34).
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irtools.dialects import ALLOC, DIALECTS, DOCUMENTED, RAW, Capability, Dialect
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.rules import RULES
from irtools.rules.context import CheckContext, CheckOptions
from irtools.rules.registry import Step
from irtools.synth import INJECTORS, InjectionError, SynthOptions, inject, synthesize
from irtools.synth.alloc import ALLOC_INJECTORS, inject_alloc, to_alloc
from irtools.synth.build import KIB, MIB
from irtools.synth.inject import Injection
from irtools.synth.raw import RAW_INJECTORS, inject_raw, to_raw
from tests.budget import examples
from tests.fuzz import mutators as M

BASES = (SynthOptions(2, 1, 9, 1, 256 * KIB, 1, 1), SynthOptions(2, 2, 14, 2, 1 * MIB, 2, 2))
"""Two small synth schedules: a 2x1 mesh with one ring region, a 2x2 mesh with two regions and batch 2."""

OPTIONS = CheckOptions(wl0_size=16384, addr_align=64, l2_size=256 * KIB)
"""Opt-in options on, and an L2 size, so every form of every rule can run."""

Injector = Callable[[dict[str, Any], list[str], int], Injection]
INJECT: dict[str, tuple[Injector, list[str]]] = {
    DOCUMENTED.name: (inject, sorted(INJECTORS)),
    RAW.name: (inject_raw, sorted(RAW_INJECTORS)),
    ALLOC.name: (inject_alloc, sorted({*RAW_INJECTORS, *ALLOC_INJECTORS})),
}


@functools.cache
def _base(index: int, dialect: str) -> str:
    document = synthesize(BASES[index]).document
    if dialect != DOCUMENTED.name:
        document = to_raw(document)
    if dialect == ALLOC.name:
        document = to_alloc(document)
    return json.dumps(document)


@functools.cache
def _fuzz_bases() -> tuple[bytes, ...]:
    """What the fuzzer starts from: the samples, slices of the real files (documented, raw, alloc) and the
    synth bases of every dialect."""
    bases = [M.base_bytes(p) for p in M.sample_bases()]
    bases += [M.base_bytes(p, window) for p, window in M.fixture_bases()]
    bases += [_base(i, d.name).encode() for i in range(len(BASES)) for d in DIALECTS]
    return tuple(bases)


def _screened_steps() -> dict[str, tuple[str, Step]]:
    """Every step with a screen, once, by `CODE screen-name`, with its rule's code."""
    steps: dict[str, tuple[str, Step]] = {}
    for code, entry in RULES.items():
        for form in (entry.main, *entry.variants):
            for step in form.steps if form else ():
                if step.screen is not None:
                    steps.setdefault(f"{code} {step.screen.__name__}", (code, step))
    return steps


SCREENS = _screened_steps()


def _runs_on(code: str, step: Step, capabilities: frozenset[Capability]) -> bool:
    form = RULES[code].form_for(capabilities)
    return form is not None and step in form.steps


def _dialects(code: str, step: Step) -> list[Dialect]:
    return [d for d in DIALECTS if _runs_on(code, step, d.capabilities | {Capability.L2_SIZE})]


@st.composite
def synth_files(draw: st.DrawFn, code: str, dialects: list[Dialect]) -> bytes:
    """A small synth file of one of `dialects` with the rule's own defect (where the dialect's injectors
    have it) and up to two others."""
    dialect = draw(st.sampled_from(dialects)).name
    injector, codes = INJECT[dialect]
    own = [code] if code in codes else []
    others = draw(st.lists(st.sampled_from(codes), min_size=0 if own else 1, max_size=2, unique=True))
    chosen = sorted({*own, *others})
    base = json.loads(_base(draw(st.sampled_from(range(len(BASES)))), dialect))
    try:
        injection = injector(base, chosen, draw(st.integers(0, 2)))
    except InjectionError:
        assume(False)
        raise
    return json.dumps(injection.document).encode()


@st.composite
def fuzzed_files(draw: st.DrawFn) -> bytes:
    """A fuzzed sample, real-file slice or synth file (the campaign's mutators)."""
    base = draw(st.sampled_from(_fuzz_bases()))
    data, _ = M.generate(base, random.Random(draw(st.integers(0, 2**32 - 1))))
    return data


def _row_of(index: IRIndex) -> dict[str, int]:
    """A workload's pointer (`/core/position`) -> its row."""
    return {ref.pointer: row for row, ref in enumerate(index.rows)}


@pytest.mark.bounded  # generated input: under the memory bound of tests/budget.py
@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_keeps_every_reference_finding(name: str) -> None:
    code, step = SCREENS[name]
    assert step.screen is not None
    screen = step.screen

    @settings(
        max_examples=examples(25),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(data=st.one_of(synth_files(code, _dialects(code, step)), fuzzed_files()))
    def keeps(data: bytes) -> None:
        loaded = load_ir(data, "<screened>")
        if loaded.ir is None:
            return
        index = IRIndex(loaded, OPTIONS)
        if not _runs_on(code, step, index.capabilities):
            return
        rows = screen(index)
        if rows is None:
            return  # the columns could not tell: the whole file is checked
        assert rows == sorted(set(rows)) and all(0 <= r < len(index.rows) for r in rows)
        findings = list(step.check(index, CheckContext(OPTIONS)))
        if step.whole_file and not rows:
            assert findings == [], f"{name} flagged nothing, but the check finds {findings[0]}"
            return
        row_of = _row_of(index)
        for finding in findings:
            row = row_of.get("/".join(finding.pointer.split("/")[:3]))
            assert row is None or row in rows, f"{name} misses row {row}: {finding}"

    keeps()


def test_every_screen_is_tested_on_a_dialect_it_runs_on() -> None:
    # The screens of the main forms, the raw forms (GIR204) and the second steps (GIR203's DRAM part).
    assert {"GIR201", "GIR203", "GIR204", "GIR302", "GIR504"} <= {code for code, _ in SCREENS.values()}
    assert all(_dialects(code, step) for code, step in SCREENS.values())
    assert any(RAW in _dialects(code, step) for code, step in SCREENS.values())
