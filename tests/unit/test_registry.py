"""The rule catalogue (codes, names, docs, one module per rule), --select/--ignore/--severity resolution,
and how the registry runs a rule: its screen, then its reference check."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

import pytest

from irtools import reference
from irtools.findings import Finding, Severity
from irtools.reference import reference_core
from irtools.rules import RULES
from irtools.rules.context import CheckContext
from irtools.rules.registry import Step, UsageError, parse_severity_overrides, register, resolve_selection
from tests.conftest import ROOT

CODES = sorted(RULES)
LOADER_CODES = ["GIR100", "GIR101", "GIR102", "GIR103"]


def test_loader_codes_are_registered() -> None:
    # Codes the loader emits are rules like any other, so --ignore, docs and SARIF treat them uniformly.
    assert set(LOADER_CODES) <= set(RULES)


@pytest.mark.parametrize("code", CODES)
def test_code_and_name(code: str) -> None:
    entry = RULES[code]
    assert entry.code == code
    assert re.fullmatch(r"GIR\d{3}", code)
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", entry.name), entry.name
    assert isinstance(entry.severity, Severity)


def test_names_are_unique() -> None:
    names = [entry.name for entry in RULES.values()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("code", CODES)
def test_doc_starts_with_a_one_line_sentence(code: str) -> None:
    entry = RULES[code]
    lines = entry.doc.splitlines()
    assert lines, f"{code} has no documentation"
    first = lines[0]
    assert entry.summary == first
    assert first == first.strip()
    assert first[0].isupper() or first.startswith("`"), first  # a sentence may open with a `key`
    assert first.endswith("."), first
    assert len(lines) == 1 or lines[1] == "", "the summary is one line, then a blank line"


@pytest.mark.parametrize("code", LOADER_CODES)
def test_loader_rules_explain_why(code: str) -> None:
    paragraphs = RULES[code].doc.split("\n\n")
    assert any(p.startswith("Why: ") and len(p) > len("Why: ") + 20 for p in paragraphs[1:]), RULES[code].doc


@pytest.mark.parametrize("code", [c for c in CODES if RULES[c].check is not None])
def test_check_docstring_is_the_rule_doc(code: str) -> None:
    entry = RULES[code]
    assert entry.check is not None
    assert entry.doc == inspect.cleandoc(entry.check.__doc__ or "")


@pytest.mark.parametrize("code", [c for c in CODES if c[3] in "12345"])
def test_family(code: str) -> None:
    assert RULES[code].family != "other"
    assert RULES["GIR101"].family == "loading and schema"


def test_codes_cannot_be_registered_twice() -> None:
    before = dict(RULES)
    with pytest.raises(ValueError, match="GIR101 registered twice"):
        register("GIR101", "something-else", Severity.INFO, "Another meaning.")
    assert RULES == before


# --- resolve_selection -----------------------------------------------------------------------------------


def gir1() -> set[str]:
    return {c for c in RULES if c.startswith("GIR1")}


def test_default_is_every_rule() -> None:
    assert resolve_selection(None, None) == frozenset(RULES)
    assert resolve_selection([], []) == frozenset(RULES)


def test_select_prefix() -> None:
    assert resolve_selection(["GIR1"], None) == gir1()
    assert resolve_selection(["GIR10"], None) == {c for c in RULES if c.startswith("GIR10")}


def test_select_exact_code() -> None:
    assert resolve_selection(["GIR103"], None) == {"GIR103"}


def test_selectors_are_case_insensitive() -> None:
    assert resolve_selection(["gir1"], ["gir103"]) == gir1() - {"GIR103"}


def test_ignore_removes_from_the_default() -> None:
    assert resolve_selection(None, ["GIR1"]) == set(RULES) - gir1()


def test_ignore_a_code_inside_a_selected_prefix() -> None:
    assert resolve_selection(["GIR1"], ["GIR103"]) == gir1() - {"GIR103"}


def test_longer_select_beats_shorter_ignore() -> None:
    assert resolve_selection(["GIR103"], ["GIR1"]) == {"GIR103"}
    # --select GIR1 --ignore GIR10 --select GIR103: GIR103 is more specific than GIR10, so it stays.
    assert resolve_selection(["GIR1"], ["GIR10"]) == {c for c in gir1() if not c.startswith("GIR10")}
    assert resolve_selection(["GIR1", "GIR103"], ["GIR10"]) == {
        c for c in gir1() if not c.startswith("GIR10")
    } | {"GIR103"}


def test_longer_ignore_beats_shorter_select() -> None:
    assert resolve_selection(["GIR1"], ["GIR10"]) & {"GIR100", "GIR101", "GIR102", "GIR103"} == set()
    assert resolve_selection(["GIR10"], ["GIR103"]) == {c for c in RULES if c.startswith("GIR10")} - {
        "GIR103"
    }


def test_equal_length_tie_goes_to_ignore() -> None:
    assert resolve_selection(["GIR101"], ["GIR101"]) == set()
    assert resolve_selection(["GIR1", "GIR5"], ["GIR1"]) == {c for c in RULES if c.startswith("GIR5")}


def test_order_of_selectors_does_not_matter() -> None:
    assert resolve_selection(["GIR103", "GIR1"], ["GIR10"]) == resolve_selection(
        ["GIR1", "GIR103"], ["GIR10"]
    )


@pytest.mark.parametrize(
    ("select", "ignore", "flag", "bad"),
    [
        (["GIR999"], None, "--select", "GIR999"),
        (["GIR1", "GIR9"], None, "--select", "GIR9"),
        (None, ["E501"], "--ignore", "E501"),
        (["GIR1"], ["GIR1000"], "--ignore", "GIR1000"),
    ],
)
def test_unknown_code_is_a_usage_error_naming_the_flag(
    select: list[str] | None, ignore: list[str] | None, flag: str, bad: str
) -> None:
    with pytest.raises(UsageError) as info:
        resolve_selection(select, ignore)
    assert flag in str(info.value)
    assert repr(bad) in str(info.value)


def test_usage_error_is_raised_even_when_ignore_would_cover_it() -> None:
    with pytest.raises(UsageError, match="--ignore"):
        resolve_selection(["GIR1"], ["GIR1", "GIR777"])


# --- parse_severity_overrides ----------------------------------------------------------------------------


def test_severity_overrides() -> None:
    assert parse_severity_overrides([]) == {}
    assert parse_severity_overrides(["GIR103=error", "gir101 = Warning", "GIR100=info"]) == {
        "GIR103": Severity.ERROR,
        "GIR101": Severity.WARNING,
        "GIR100": Severity.INFO,
    }


def test_last_severity_override_wins() -> None:
    assert parse_severity_overrides(["GIR103=error", "GIR103=info"]) == {"GIR103": Severity.INFO}


@pytest.mark.parametrize(
    ("item", "fragment"),
    [
        ("GIR103", "expected CODE=error|warning|info"),
        ("GIR999=error", "expected CODE=error|warning|info"),
        ("GIR1=error", "expected CODE=error|warning|info"),  # a prefix is not a code here
        ("GIR103=fatal", "unknown severity 'fatal'"),
        ("GIR103=", "unknown severity ''"),
    ],
)
def test_bad_severity_override(item: str, fragment: str) -> None:
    with pytest.raises(UsageError, match="--severity") as info:
        parse_severity_overrides([item])
    assert fragment in str(info.value)


def test_severity_order() -> None:
    assert [s.rank for s in (Severity.INFO, Severity.WARNING, Severity.ERROR)] == [0, 1, 2]
    assert sorted(Severity, key=lambda s: s.rank) == [Severity.INFO, Severity.WARNING, Severity.ERROR]


# --- layout: one module per rule ---------------------------------------------------------------------------

FAMILY_PACKAGES = {"GIR2": "transfers", "GIR3": "l2", "GIR4": "wl0", "GIR5": "schedule"}
"""The package of each family with checks (GIR1xx and GIR6xx are catalogued in loading.py and trace.py)."""


@pytest.mark.parametrize("code", [c for c in CODES if RULES[c].main is not None])
def test_each_rule_lives_in_its_own_module_under_its_family(code: str) -> None:
    # irtools/rules/<family>/<name>.py holds its reference check, its screen and its variants.
    entry = RULES[code]
    module = f"irtools.rules.{FAMILY_PACKAGES[code[:4]]}.{entry.name.replace('-', '_')}"
    forms = [entry.main, *entry.variants]
    functions = [f for form in forms if form for step in form.steps for f in (step.check, step.screen) if f]
    assert {f.__module__ for f in functions} == {module}


def test_every_rule_module_is_imported_by_its_family() -> None:
    # Registration is by import: a rule module its family's __init__ leaves out would never run.
    import ast

    rules = ROOT / "irtools" / "rules"
    for package in FAMILY_PACKAGES.values():
        init = ast.parse((rules / package / "__init__.py").read_text())
        imported = {a.name for node in ast.walk(init) if isinstance(node, ast.ImportFrom) for a in node.names}
        for path in sorted((rules / package).glob("*.py")):
            source = path.read_text()
            if "@rule(" in source:
                assert path.stem in imported, f"{path.name} is not imported by {package}/__init__.py"
                assert source.count("@rule(") == 1, f"{path.name} registers more than one rule"


# --- the registry runs each rule's screen, then its reference check ----------------------------------------


def _mesh_index() -> Any:
    from irtools.loading.index import IRIndex
    from irtools.loading.load import load_ir

    return IRIndex(load_ir(ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"))


def _walked(steps: list[list[int]]) -> Any:
    """A check that records the rows of the workloads it walks."""

    def check(ir: Any, ctx: Any) -> Iterator[Finding]:
        rows = {id(ref): n for n, ref in enumerate(ir.rows)}
        steps.append([rows[id(ref)] for ref in ir.workloads()])
        yield from ()

    return check


@pytest.mark.parametrize(
    ("flagged", "whole_file", "walked"),
    [
        ([1, 3], False, [[1, 3]]),
        ([], False, [[]]),
        (None, False, [[0, 1, 2, 3, 4]]),
        ([2], True, [[0, 1, 2, 3, 4]]),
        ([], True, []),
    ],
)
def test_a_step_checks_what_its_screen_flags(
    flagged: list[int] | None, whole_file: bool, walked: list[list[int]]
) -> None:
    # Flagged rows only; all when the screen cannot tell; a whole-file check whole or not at all.
    steps: list[list[int]] = []
    step = Step(_walked(steps), lambda ir: flagged, whole_file)
    list(step.run(_mesh_index(), CheckContext()))
    assert steps == walked


def test_the_reference_core_skips_the_screen_in_its_own_context_only() -> None:
    import threading

    def screen(ir: Any) -> list[int]:
        raise AssertionError("the reference core runs no screen")

    steps: list[list[int]] = []
    step = Step(_walked(steps), screen)
    index = _mesh_index()
    seen: list[bool] = []
    with reference_core():
        list(step.run(index, CheckContext()))
        other = threading.Thread(target=lambda: seen.append(reference.active()))
        other.start()
        other.join()
    assert steps == [[0, 1, 2, 3, 4]]
    assert seen == [False]  # a ContextVar: another thread keeps the environment's choice (fast)
    assert not reference.active()
