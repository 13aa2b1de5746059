"""Dialects as declared objects: every rule runs in the form a file's capabilities allow, and the rules
that cannot run are named once, with what they lack, derived from their declared needs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irtools.dialects import ALLOC, DIALECTS, DOCUMENTED, RAW, Capability, Dialect, dialect_of, sniff
from irtools.findings import Finding, Severity
from irtools.loading.load import load_ir
from irtools.model.base import CORE_KEY
from irtools.rules import RULES
from irtools.rules.context import CheckOptions
from irtools.rules.registry import register, skipped_note
from irtools.synth import SynthOptions, synthesize
from irtools.synth.alloc import to_alloc
from irtools.synth.allocator import ADDRESS_ALIGN
from irtools.synth.build import MIB
from irtools.synth.raw import to_raw
from irtools.validate import check_loaded

SAMPLE = SynthOptions(xlen=2, ylen=2, layers=14, batch=2, buffersize=8 * MIB, ring_regions=1, seed=5)
# Every opt-in rule on: WL0 capacity, address alignment, and an L2 size for files that record none.
ALL_ON = CheckOptions(wl0_size=1 << 30, addr_align=ADDRESS_ALIGN, l2_size=1 << 40)


def _sample(dialect: Dialect) -> bytes:
    document = synthesize(SAMPLE).document
    if dialect is not DOCUMENTED:
        document = to_raw(document)
    if dialect is ALLOC:
        document = to_alloc(document)
    return json.dumps(document).encode()


@pytest.fixture
def probe() -> Iterator[str]:
    """A rule that needs what only documented files hold, registered for one test."""

    def check(ir: Any, ctx: Any) -> Iterator[Finding]:
        yield from ()

    register("GIR499", "probe", Severity.WARNING, "Probe.\n\nWhy: test.", check, needs={Capability.WL0})
    yield "GIR499"
    del RULES["GIR499"]


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_every_rule_the_capabilities_allow_runs_without_crashing(dialect: Dialect) -> None:
    loaded = load_ir(_sample(dialect))
    assert loaded.dialect is dialect
    findings = check_loaded(loaded, ALL_ON)
    assert not [f for f in findings if f.code == "GIR001"], [
        f.message for f in findings if f.code == "GIR001"
    ]
    capabilities = dialect.capabilities | {Capability.L2_SIZE}
    runs = {code for code, entry in RULES.items() if entry.check and entry.form_for(capabilities)}
    skipped = {code for code, entry in RULES.items() if entry.check} - runs
    note = next((f.message for f in findings if f.message.startswith("rules skipped")), "")
    assert {code for code in skipped if code in note} == skipped
    assert not [code for code in runs if code in note]
    # The synth sample is clean in every dialect: nothing but notes.
    assert not [f for f in findings if f.severity is not Severity.INFO], [f.message for f in findings]


def test_documented_runs_every_rule_and_says_nothing_is_skipped() -> None:
    findings = check_loaded(load_ir(_sample(DOCUMENTED)), ALL_ON)
    assert not [f for f in findings if f.message.startswith("rules skipped")]


def test_alloc_runs_the_address_rules_that_raw_skips() -> None:
    raw_caps, alloc_caps = RAW.capabilities, ALLOC.capabilities
    for code in ("GIR302", "GIR308"):
        assert RULES[code].form_for(raw_caps) is None and RULES[code].form_for(alloc_caps) is not None
    # Dialect-specific forms are declared variants, chosen by capability: on alloc files GIR304 runs the
    # raw form (held-ahead inputs) and then the documented one (load flags).
    gir304 = RULES["GIR304"]
    raw, alloc = gir304.form_for(raw_caps), gir304.form_for(alloc_caps)
    assert raw is not None and alloc is not None and gir304.main is not None
    assert [s.check for s in alloc.steps] == [*(s.check for s in raw.steps), gir304.main.steps[0].check]
    assert gir304.form_for(DOCUMENTED.capabilities) is gir304.main


def test_a_rule_needing_what_a_file_lacks_is_reported_skipped(probe: str) -> None:
    note = skipped_note(RAW.capabilities, RAW.name) or ""
    assert f"{probe}" in note and "a WL0 snapshot" in note
    findings = check_loaded(load_ir(_sample(RAW)))
    assert any(probe in f.message for f in findings if f.message.startswith("rules skipped"))
    assert skipped_note(DOCUMENTED.capabilities, DOCUMENTED.name) is None


def test_the_l2_size_is_a_capability_the_user_can_give() -> None:
    assert "GIR301 needs an L2 size" in (skipped_note(RAW.capabilities, "raw") or "")
    assert "GIR301" not in (skipped_note(RAW.capabilities | {Capability.L2_SIZE}, "raw") or "")


def test_sniff_prefers_the_most_specific_shape() -> None:
    for dialect in DIALECTS:
        members = list(json.loads(_sample(dialect)).items())
        found, again = sniff(members)
        assert found is dialect and list(again) == members


def _parts() -> list[tuple[str, Any]]:
    """Members to build files from: each dialect's DRAM section and cores, cores that show no shape, keys
    that mark a dialect or none, and a DRAM section whose destinations are not objects."""
    parts: list[tuple[str, Any]] = []
    for dialect in DIALECTS:
        members = json.loads(_sample(dialect))
        cores = [(k, v) for k, v in members.items() if k.isdigit()]
        parts += [("-1", members["-1"]), *cores[:2]]
    parts += [("7", []), ("8", [{"layer_name": "x"}]), ("buffersize", 1 << 20), ("xlen", 2)]
    return [*parts, ("-1", {"out": [{"destination": True}]})]


PARTS = _parts()


@given(st.lists(st.sampled_from(PARTS), max_size=6, unique_by=lambda kv: kv[0]))
def test_dialect_of_judges_as_sniff_does_reading_only_the_members_that_decide(
    members: list[tuple[str, Any]],
) -> None:
    document = dict(members)
    read: list[str] = []

    def peek(key: str) -> Any:
        read.append(key)
        return document[key]

    assert dialect_of(document.keys(), peek) is sniff(members)[0]
    # Cores in file order, up to the one that decides; the DRAM section last, and only if none did.
    assert all(CORE_KEY.match(key) for key in read if key != "-1")
    assert "-1" not in read or read[-1] == "-1"
