"""`irtools synth --dialect alloc`: valid allocated files (SET-like placement), and injected overlaps and
out-of-bounds addresses found exactly as predicted."""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from irtools.cli.main import main
from irtools.dialects import ALLOC
from irtools.dialects.alloc.models import AllocIR
from irtools.dialects.schema import build_schema
from irtools.report.json_report import finding_to_json
from irtools.rules.context import CheckOptions
from irtools.synth import SynthOptions, synthesize
from irtools.synth.alloc import ALLOC_INJECTORS, alloc_baseline, inject_alloc, tensors, to_alloc
from irtools.synth.build import KIB, MIB
from irtools.synth.raw import RAW_INJECTORS, to_raw
from irtools.synth.writer import ir_text, write_ir
from irtools.validate import validate_file
from tests.budget import examples

BASES = [
    SynthOptions(xlen=2, ylen=1, layers=9, batch=1, buffersize=256 * KIB, ring_regions=1, seed=1),
    SynthOptions(xlen=2, ylen=2, layers=14, batch=2, buffersize=1 * MIB, ring_regions=2, seed=2),
    SynthOptions(xlen=3, ylen=2, layers=20, batch=1, buffersize=8 * MIB, ring_regions=1, seed=3),
]


@functools.cache
def _alloc(index: int) -> str:
    return ir_text(to_alloc(to_raw(synthesize(BASES[index]).document)))


def _findings(
    tmp: Path, document: dict[str, Any], options: CheckOptions | None = None
) -> list[dict[str, Any]]:
    path = tmp / "alloc.json"
    write_ir(path, document)
    return [finding_to_json(f) for f in validate_file(str(path), options).findings]


@pytest.mark.parametrize("index", range(len(BASES)))
def test_alloc_synth_is_valid_in_both_validators_and_clean(tmp_path: Path, index: int) -> None:
    doc = json.loads(_alloc(index))
    assert list(Draft202012Validator(build_schema(ALLOC)).iter_errors(doc)) == []
    AllocIR.model_validate(doc)
    expected = [finding_to_json(f) for f in alloc_baseline(doc, None)]
    assert sorted(_findings(tmp_path, doc), key=str) == sorted(expected, key=str)


def test_placement_keeps_live_tensors_apart_and_flags_loads() -> None:
    doc = json.loads(_alloc(2))
    for key in (k for k in doc if k.isdigit()):
        for position, wl in enumerate(doc[key]):
            spans = sorted((e["address"], e["address"] + e["block"]) for e in wl["buffer"] if e["block"])
            assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), (key, position)
        for tensor in tensors(doc[key]):
            entries = [doc[key][position]["buffer"][i] for position, i in tensor.entries]
            assert len({e["address"] for e in entries}) == 1  # one place for the whole lifetime
            for (position, _), entry in zip(tensor.entries, entries, strict=True):
                if entry["type"] != "ofmap":
                    assert entry["start_loading"] is (position == tensor.first)


@settings(max_examples=examples(12), deadline=None)
@given(
    index=st.integers(0, len(BASES) - 1),
    codes=st.lists(
        st.sampled_from(sorted({*ALLOC_INJECTORS, *RAW_INJECTORS})), min_size=1, max_size=4, unique=True
    ),
    seed=st.integers(0, 10_000),
)
def test_injected_alloc_defects_are_found_exactly(
    tmp_path_factory: pytest.TempPathFactory, index: int, codes: list[str], seed: int
) -> None:
    injection = inject_alloc(json.loads(_alloc(index)), codes, seed)
    expected = sorted((finding_to_json(f) for f in injection.findings), key=str)
    assert {f["code"] for f in expected if f["severity"] != "info"} == set(codes)
    got = _findings(tmp_path_factory.mktemp("alloc"), injection.document, injection.options)
    assert sorted(got, key=str) == expected


def test_synth_cli_writes_alloc_with_its_expected_findings_and_l2_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a.json"
    args = ["synth", "-o", str(out), "--mesh", "2x2", "--layers", "20", "--seed", "3", "--dialect", "alloc"]
    assert main([*args, "--inject", "GIR301,GIR302"]) == 0
    printed = capsys.readouterr().out
    assert "alloc dialect" in printed and "--l2-size" in printed
    options = json.loads((tmp_path / "a.options.expected.json").read_text())
    expected = json.loads((tmp_path / "a.expected.json").read_text())
    assert (
        main(
            [
                "validate",
                *options["validate_args"],
                "--format",
                "json",
                "-o",
                str(tmp_path / "v.json"),
                str(out),
            ]
        )
        == 1
    )
    reported = json.loads((tmp_path / "v.json").read_text())["files"][0]["findings"]
    # The report adds each finding's position and fingerprint to the golden fields.
    assert [
        {k: v for k, v in f.items() if k not in ("line", "column", "fingerprint")} for f in reported
    ] == expected
    assert main([*args, "--inject", "GIR402"]) == 2
    assert "not available with --dialect alloc" in capsys.readouterr().err
