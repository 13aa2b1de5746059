"""`irtools synth --inject`: the checker reports each injected defect and nothing else."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irtools.report.json_report import finding_to_json
from irtools.rules import RULES
from irtools.rules.context import CheckOptions
from irtools.synth import INJECTORS, InjectionError, SynthOptions, inject, synthesize
from irtools.synth.build import KIB, MIB
from irtools.synth.inject import COMPANIONS
from irtools.synth.writer import ir_text, sidecar, write_expected, write_ir
from irtools.validate import validate_file
from tests.budget import examples

CODES = sorted(INJECTORS)

BASES = [
    SynthOptions(xlen=2, ylen=1, layers=9, batch=1, buffersize=256 * KIB, ring_regions=1, seed=1),
    SynthOptions(xlen=2, ylen=2, layers=14, batch=2, buffersize=1 * MIB, ring_regions=2, seed=2),
    SynthOptions(xlen=3, ylen=2, layers=20, batch=1, buffersize=8 * MIB, ring_regions=1, seed=3),
    SynthOptions(xlen=1, ylen=3, layers=12, batch=2, buffersize=8 * MIB, ring_regions=3, seed=4),
]
"""Small IRs with at least two cores, so that every code has a place (GIR502 needs two cores)."""


@functools.cache
def _base(index: int) -> str:
    return ir_text(synthesize(BASES[index]).document)


def _check(
    tmp: Path, base: int, codes: list[str], seed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Inject, write the IR and its sidecars as `irtools synth` does; (checker's findings, expected findings)."""
    injection = inject(json.loads(_base(base)), codes, seed)
    path = tmp / "ir.json"
    write_ir(path, injection.document)
    write_expected(path, injection.findings, injection.options)
    options = CheckOptions()
    recorded = sidecar(path, ".options.expected.json")
    if recorded.exists():
        saved = json.loads(recorded.read_text())
        options = CheckOptions(addr_align=saved["addr_align"], wl0_size=saved["wl0_size"])
    actual = [finding_to_json(f) for f in validate_file(str(path), options).findings]
    return actual, json.loads(sidecar(path).read_text())


def _assert_surgical(actual: list[dict[str, Any]], expected: list[dict[str, Any]], codes: list[str]) -> None:
    # Every injected code is expected at a warning or error, and nothing but those codes (with the ones
    # their defect triggers by definition) and GIR303's note.
    for code in codes:
        assert any(f["code"] == code and f["severity"] != "info" for f in expected), code
    companions = {c for code in codes for c in COMPANIONS.get(code, ())}
    assert {f["code"] for f in expected if f["severity"] != "info"} == set(codes) | companions
    assert {(f["code"], f["severity"]) for f in expected if f["severity"] == "info"} <= {("GIR303", "info")}
    assert actual == expected


@pytest.mark.parametrize("code", CODES)
@settings(max_examples=examples(6), deadline=None)
@given(base=st.integers(0, len(BASES) - 1), seed=st.integers(0, 2**32))
def test_each_code_alone(tmp_path_factory: pytest.TempPathFactory, code: str, base: int, seed: int) -> None:
    actual, expected = _check(tmp_path_factory.mktemp("inject"), base, [code], seed)
    _assert_surgical(actual, expected, [code])


@settings(max_examples=examples(20), deadline=None)
@given(base=st.integers(0, len(BASES) - 1), seed=st.integers(0, 2**32), data=st.data())
def test_several_codes_at_once(
    tmp_path_factory: pytest.TempPathFactory, base: int, seed: int, data: Any
) -> None:
    codes = sorted(data.draw(st.sets(st.sampled_from(CODES), min_size=2, max_size=8)))
    actual, expected = _check(tmp_path_factory.mktemp("inject"), base, codes, seed)
    _assert_surgical(actual, expected, codes)


@pytest.mark.parametrize("base", range(len(BASES)))
def test_every_code_at_once(tmp_path: Path, base: int) -> None:
    actual, expected = _check(tmp_path, base, CODES, seed=base)
    _assert_surgical(actual, expected, CODES)


def test_every_rule_with_a_semantic_check_has_an_injector() -> None:
    semantic = {c for c, r in RULES.items() if r.check is not None and c[3] in "2345"}
    assert semantic == set(INJECTORS)


def test_injection_is_deterministic_and_leaves_its_input_alone() -> None:
    document = json.loads(_base(1))
    first, second = inject(document, CODES, 9), inject(document, list(reversed(CODES)), 9)
    assert document == json.loads(_base(1))
    assert first.document == second.document and first.findings == second.findings
    assert first.document != document


def test_the_builders_shared_lists_do_not_leak_a_defect_into_other_snapshots() -> None:
    # Snapshots share the lists of a tensor that lives in several of them; an injector changes one.
    document = synthesize(BASES[2]).document
    for seed in range(5):
        injection = inject(document, ["GIR305", "GIR504"], seed)
        changed = {
            (int(key), wb["workload_id"])
            for key, workloads in document.items()
            if key.isdigit()
            for wa, wb in zip(workloads, injection.document[key], strict=True)
            if wa != wb
        }
        assert changed == {(f.core_id, f.workload_id) for f in injection.findings}
        assert len(changed) == 2


def test_no_place_for_a_deadlock_on_one_core(run_cli: Any, tmp_path: Path) -> None:
    document = synthesize(SynthOptions(xlen=1, ylen=1, layers=10)).document
    with pytest.raises(InjectionError, match="GIR502"):
        inject(document, ["GIR502"], 0)
    code, _, err = run_cli("synth", "--mesh", "1x1", "--inject", "GIR502", "-o", tmp_path / "ir.json")
    assert code == 2
    assert "irtools synth: error: --inject GIR502: no cross-core transfer" in err
    assert not list(tmp_path.iterdir())


def test_cli_writes_the_expected_sidecar_in_golden_format(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "defects.json"
    code, out, err = run_cli(
        "synth",
        "--mesh",
        "2x2",
        "--layers",
        "12",
        "--ring-regions",
        "2",
        "--inject",
        "gir302, GIR205",
        "-o",
        path,
    )
    assert code == 0, err
    expected_path = tmp_path / "defects.expected.json"
    assert f"injected GIR205, GIR302: wrote {expected_path}" in out
    assert not (tmp_path / "defects.options.expected.json").exists()
    code, out, err = run_cli("validate", "--format", "json", path)
    assert code == 1  # GIR302 is an error
    # The report adds each finding's position and fingerprint to the golden fields.
    reported = [
        {k: v for k, v in f.items() if k not in ("line", "column", "fingerprint")}
        for f in json.loads(out)["files"][0]["findings"]
    ]
    assert reported == json.loads(expected_path.read_text())
    # `irtools validate DIR` skips the sidecar, as it does sample_ir's.
    code, out, _ = run_cli("validate", "--format", "json", tmp_path)
    assert [f["path"] for f in json.loads(out)["files"]] == [str(path)]


def test_opt_in_codes_record_the_validate_options(run_cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "opt.json"
    code, out, err = run_cli("synth", "--layers", "12", "--inject", "GIR308,GIR402", "-o", path)
    assert code == 0, err
    recorded = json.loads((tmp_path / "opt.options.expected.json").read_text())
    assert recorded["validate_args"] == ["--addr-align", "64", "--wl0-size", "16384"]
    assert f"validate with: irtools validate --addr-align 64 --wl0-size 16384 {path}" in out
    code, out, _ = run_cli("validate", "--format", "json", *recorded["validate_args"], path)
    findings = json.loads(out)["files"][0]["findings"]
    golden_fields = [
        {k: v for k, v in f.items() if k not in ("line", "column", "fingerprint")} for f in findings
    ]
    assert golden_fields == json.loads((tmp_path / "opt.expected.json").read_text())
    assert sorted(f["code"] for f in findings) == ["GIR308", "GIR402"]
    # Without the options, the opt-in rules stay silent.
    code, out, _ = run_cli("validate", "--format", "json", path)
    assert json.loads(out)["files"][0]["findings"] == []
