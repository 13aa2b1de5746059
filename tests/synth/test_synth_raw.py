"""`irtools synth --dialect raw`: valid raw-dialect files from the same generator, and injected defects found."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from irtools.cli.main import main
from irtools.dialects import RAW
from irtools.dialects.raw.models import RawIR
from irtools.dialects.schema import build_schema
from irtools.report.json_report import finding_to_json
from irtools.synth import SynthOptions, synthesize
from irtools.synth.build import KIB, MIB
from irtools.synth.raw import RAW_INJECTORS, inject_raw, raw_baseline, to_raw
from irtools.synth.writer import ir_text, write_ir
from irtools.validate import validate_file
from tests.budget import examples

BASES = [
    SynthOptions(xlen=2, ylen=1, layers=9, batch=1, buffersize=256 * KIB, ring_regions=1, seed=1),
    SynthOptions(xlen=2, ylen=2, layers=14, batch=2, buffersize=1 * MIB, ring_regions=2, seed=2),
    SynthOptions(xlen=3, ylen=2, layers=20, batch=1, buffersize=8 * MIB, ring_regions=1, seed=3),
    SynthOptions(xlen=1, ylen=3, layers=12, batch=2, buffersize=8 * MIB, ring_regions=3, seed=4),
]


@functools.cache
def _raw(index: int) -> str:
    return ir_text(to_raw(synthesize(BASES[index]).document))


def _findings(tmp: Path, document: dict[str, Any]) -> list[dict[str, Any]]:
    path = tmp / "raw.json"
    write_ir(path, document)
    return [finding_to_json(f) for f in validate_file(str(path)).findings]


@pytest.mark.parametrize("index", range(len(BASES)))
def test_raw_synth_is_valid_in_both_validators_and_clean(tmp_path: Path, index: int) -> None:
    doc = json.loads(_raw(index))
    assert list(Draft202012Validator(build_schema(RAW)).iter_errors(doc)) == []
    RawIR.model_validate(doc)
    expected = [finding_to_json(f) for f in raw_baseline(doc)]
    assert sorted(_findings(tmp_path, doc), key=str) == sorted(expected, key=str)


def test_raw_synth_keeps_the_schedule_and_renumbers_cores() -> None:
    documented = synthesize(BASES[1]).document
    raw = to_raw(documented)
    assert sorted(k for k in raw if k.isdigit()) == ["1", "2", "5", "6"]  # 2x2: mesh ids
    assert [w["time"] for w in raw["6"]] == [w["time"] for w in documented["3"]]  # core 3 = mesh (1,1)
    first = documented["0"][0]
    entry = first["buffer"][0]
    assert raw["1"][0]["buffer"][0]["block"] == -(-entry["size"] // 1024)
    assert raw["1"][0]["ofmap_size"] == 8 * first["ofmap_size"]  # the dialect counts bits
    assert "buffersize" not in raw and "address" not in raw["1"][0]["buffer"][0]


RAW_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-raw"


def _buffer_keys(document: dict[str, Any]) -> dict[str, set[tuple[str, ...]]]:
    """Per L2 entry type: the key sets its entries are written with."""
    keys: dict[str, set[tuple[str, ...]]] = {}
    for core, workloads in document.items():
        for workload in workloads if core.isdigit() else []:
            for entry in workload["buffer"]:
                keys.setdefault(entry["type"], set()).add(tuple(sorted(entry)))
    return keys


@pytest.mark.skipif(not RAW_DIR.is_dir(), reason="../shared/fixtures not present")
def test_raw_synth_writes_l2_entries_with_the_keys_gemini_writes() -> None:
    real: dict[str, set[tuple[str, ...]]] = {}
    for path in RAW_DIR.glob("*.json"):
        for kind, sets in _buffer_keys(json.loads(path.read_text())).items():
            real.setdefault(kind, set()).update(sets)
    # An ofmap entry has a size and no source or transfer id in every real file; an ifmap entry
    # names the workload it is held for.
    assert real["ofmap"] == {("block", "layer", "lower", "size", "type", "upper")}
    assert all("workload_id" in keys for keys in real["ifmap"])
    for index in range(len(BASES)):
        for kind, sets in _buffer_keys(json.loads(_raw(index))).items():
            assert sets <= real[kind], (index, kind, sets - real[kind])


def _held_inputs(document: dict[str, Any]) -> dict[str, set[Any]]:
    """How a raw file lists inputs and outputs in L2: how far ahead an input is held (in workloads on
    its core), whether it carries its reader's layer, the ofmap entries' block counts."""
    found: dict[str, set[Any]] = {"ahead": set(), "reader's layer": set(), "ofmap blocks": set()}
    for core, workloads in document.items():
        if not core.isdigit():
            continue
        at = {w["workload_id"]: p for p, w in enumerate(workloads)}
        for position, workload in enumerate(workloads):
            for entry in workload["buffer"] or ():
                if entry["type"] == "ifmap":
                    reader = at.get(entry["workload_id"], -1)
                    found["ahead"].add(reader - position if reader >= position else "not later")
                    found["reader's layer"].add(
                        reader >= 0 and entry["layer"] == workloads[reader]["layer_name"]
                    )
                elif entry["type"] == "ofmap":
                    found["ofmap blocks"].add(entry["block"])
    return found


@pytest.mark.skipif(not RAW_DIR.is_dir(), reason="../shared/fixtures not present")
def test_raw_synth_holds_inputs_for_their_readers_as_gemini_does() -> None:
    """Gemini lists an input from when it is in L2 until its reader runs, under the reader's layer and
    id (SchNode::IR_gen); an ofmap entry is a 10-block staging buffer. Synth holds inputs from cores
    further ahead than the real files do (up to 6 workloads on these files, against 1)."""
    real = [_held_inputs(json.loads(path.read_text())) for path in sorted(RAW_DIR.glob("*.json"))]
    assert set().union(*(r["ahead"] for r in real)) == {0, 1}
    assert set().union(*(r["reader's layer"] for r in real)) == {True}
    assert set().union(*(r["ofmap blocks"] for r in real)) == {10}
    for index in range(len(BASES)):
        synth = _held_inputs(json.loads(_raw(index)))
        assert synth["ahead"] and all(isinstance(a, int) and a >= 0 for a in synth["ahead"]), index
        assert synth["reader's layer"] == {True} and synth["ofmap blocks"] == {10}, index


@settings(max_examples=examples(12), deadline=None)
@given(
    index=st.integers(0, len(BASES) - 1),
    codes=st.lists(st.sampled_from(sorted(RAW_INJECTORS)), min_size=1, max_size=4, unique=True),
    seed=st.integers(0, 10_000),
)
def test_injected_raw_defects_are_found_exactly(
    tmp_path_factory: pytest.TempPathFactory, index: int, codes: list[str], seed: int
) -> None:
    injection = inject_raw(json.loads(_raw(index)), codes, seed)
    expected = [finding_to_json(f) for f in injection.findings]
    assert {f["code"] for f in expected if f["severity"] != "info"} == set(codes)
    assert _findings(tmp_path_factory.mktemp("raw"), injection.document) == expected


def test_synth_cli_writes_raw_with_its_expected_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    args = ["synth", "-o", str(out), "--mesh", "3x2", "--layers", "30", "--batch", "2", "--seed", "7"]
    assert main([*args, "--dialect", "raw", "--inject", "GIR201,GIR203,GIR204,GIR502"]) == 0
    assert "raw dialect" in capsys.readouterr().out
    expected = json.loads((tmp_path / "r.expected.json").read_text())
    assert {f["code"] for f in expected if f["severity"] != "info"} == {
        "GIR201",
        "GIR203",
        "GIR204",
        "GIR502",
    }
    assert main(["validate", "--format", "json", "-o", str(tmp_path / "v.json"), str(out)]) == 1
    reported = json.loads((tmp_path / "v.json").read_text())["files"][0]["findings"]
    # The report adds each finding's position and fingerprint to the golden fields.
    assert [
        {k: v for k, v in f.items() if k not in ("line", "column", "fingerprint")} for f in reported
    ] == expected
    assert main([*args, "--dialect", "raw", "--inject", "GIR302"]) == 2
    assert "not available with --dialect raw" in capsys.readouterr().err
