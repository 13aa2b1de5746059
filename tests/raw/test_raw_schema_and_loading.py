"""The raw dialect (Gemini's IR before address allocation): its schema, its detection, its loading."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from irtools.dialects import RAW
from irtools.dialects.raw.dialect import file_pointer
from irtools.dialects.raw.models import RawIR
from irtools.dialects.schema import build_schema
from irtools.loading.load import load_ir
from irtools.loading.mesh import LINEAR, MESH, core_label, mesh_ids, numbering, position
from irtools.rules.context import CheckOptions
from irtools.validate import check_loaded

ROOT = Path(__file__).resolve().parents[2]
RAW_DIR = ROOT.parent / "shared" / "fixtures" / "gemini-raw"
pytestmark = pytest.mark.skipif(not RAW_DIR.is_dir(), reason="../shared/fixtures not present")
RESNET = RAW_DIR / "resnet_2x2_b1_ir.json"


@pytest.fixture(scope="module")
def resnet() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(RESNET.read_bytes())
    return doc


def _findings(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    loaded = load_ir(json.dumps(doc).encode(), "doc.json")
    return [(f.code, f.severity.value, f.pointer) for f in check_loaded(loaded)]


@pytest.mark.parametrize(
    "path", sorted(RAW_DIR.glob("*.json")) if RAW_DIR.is_dir() else [], ids=lambda p: p.name
)
def test_real_raw_files_pass_both_validators(path: Path) -> None:
    doc = json.loads(path.read_bytes())
    assert list(Draft202012Validator(build_schema(RAW)).iter_errors(doc)) == []
    ir = RawIR.model_validate(doc)
    assert ir.xlen * ir.ylen == len(ir.cores)


def _mutants(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
    """(what, document, valid?) pairs on which Pydantic and JSON Schema must agree."""
    out: list[tuple[str, dict[str, Any], bool]] = []

    def mutant(what: str, valid: bool, change: Any) -> None:
        d = copy.deepcopy(doc)
        change(d)
        out.append((what, d, valid))

    mutant("nested weight ids [[t]] (unpatched scheduler)", True, lambda d: _nest_weight_ids(d))
    mutant("block as a string", False, lambda d: d["1"][0]["buffer"][0].update(block="10"))
    mutant("block as a boolean", False, lambda d: d["1"][0]["buffer"][0].update(block=True))
    mutant("max_workload_id missing", False, lambda d: d["1"][0]["ifmap"].pop("max_workload_id"))
    mutant("3 coordinates in an ifmap", False, lambda d: d["1"][0]["ifmap"].update(lower=[0, 0, 0]))
    # A 3-D box is a weight taken from an ofmap (BERT); a source or an fmap always has 4 coordinates.
    mutant(
        "3 coordinates in a source",
        False,
        lambda d: d["1"][1]["buffer"][1]["source"][0].update(upper=[0, 1, 2]),
    )
    mutant("destination without id", False, lambda d: d["-1"]["out"][0]["destination"][0].pop("id"))
    mutant("no layer_type (Transpose)", True, lambda d: d["1"][0].pop("layer_type"))
    mutant("no ofmap", True, lambda d: d["1"][0].pop("ofmap"))
    mutant("negative time", False, lambda d: d["1"][0].update(time=-1))
    return out


def _nest_weight_ids(doc: dict[str, Any]) -> None:
    for wl in doc["1"]:
        for b in wl["buffer"]:
            if b["type"] == "weight" and b.get("transfer_id"):
                b["transfer_id"] = [[t] for t in b["transfer_id"]]


def test_pydantic_and_json_schema_agree_on_mutants(resnet: dict[str, Any]) -> None:
    validator = Draft202012Validator(build_schema(RAW))
    for what, doc, valid in _mutants(resnet):
        try:
            RawIR.model_validate(doc)
            pydantic_ok = True
        except ValidationError:
            pydantic_ok = False
        schema_ok = not any(True for _ in validator.iter_errors(doc))
        assert (pydantic_ok, schema_ok) == (valid, valid), what


def test_both_weight_id_forms_give_the_same_findings(resnet: dict[str, Any]) -> None:
    nested = copy.deepcopy(resnet)
    _nest_weight_ids(nested)
    assert nested["1"][0]["buffer"][0]["transfer_id"] == [[0]]
    assert _findings(nested) == _findings(resnet)


def test_dialect_is_reported_once_instead_of_schema_errors() -> None:
    loaded = load_ir(RESNET)
    assert loaded.dialect == RAW
    findings = check_loaded(loaded)
    assert not [f for f in findings if f.code == "GIR101"]
    notes = [f.message for f in findings if f.code == "GIR103"]
    assert len(notes) == 2
    assert "raw dialect" in notes[0] and "before address allocation" in notes[0]
    # Derived from the rules' declared needs: the address rules lack addresses, GIR301 (which has a
    # form for block counts) only an L2 size, which --l2-size gives.
    assert "GIR302, GIR308 need L2 addresses" in notes[1]
    assert "GIR301 needs an L2 size (buffersize in the file, or --l2-size)" in notes[1]
    given = check_loaded(loaded, CheckOptions(l2_size=2 << 20))
    assert "GIR301" not in next(f.message for f in given if f.message.startswith("rules skipped"))


def test_documented_files_are_not_taken_for_raw() -> None:
    # The samples are documented files, but for those of the raw and alloc variants, named for their dialect.
    for path in sorted((ROOT / "sample_ir").rglob("*.json")):
        if not path.name.endswith(".expected.json"):
            named = next((d for d in ("raw", "alloc") if f"-{d}-" in path.name), "documented")
            assert load_ir(path).dialect.name == named, path


def test_schema_error_in_a_raw_file_points_into_the_file(resnet: dict[str, Any]) -> None:
    doc = copy.deepcopy(resnet)
    doc["2"][3]["buffer"][1]["block"] = "7"
    doc["2"][4]["ifmap"]["surprise"] = 1
    findings = _findings(doc)
    assert ("GIR101", "error", "/2/3/buffer/1/block") in findings
    assert ("GIR103", "warning", "/2/4/ifmap/surprise") in findings
    # The broken workload is left out, the others are still checked: nothing dangles because of it.
    assert not [f for f in findings if f[0] in ("GIR201", "GIR203")]


def test_ifmap_pointers_name_the_object_in_the_file() -> None:
    assert file_pointer("/5/12/ifmap/0") == "/5/12/ifmap"
    assert file_pointer("/5/12/ifmap/0/max_workload_id") == "/5/12/ifmap/max_workload_id"
    assert file_pointer("/5/12/ofmap/0") == "/5/12/ofmap/0"


def test_core_numbering() -> None:
    assert mesh_ids(2, 2) == [1, 2, 5, 6]
    assert mesh_ids(4, 4)[4:8] == [7, 8, 9, 10]
    assert numbering([0, 1, 2, 3], 2, 2) == LINEAR
    assert numbering([1, 2, 5, 6], 2, 2) == MESH
    assert numbering([0], 1, 1) == LINEAR
    assert (
        position(6, MESH, 2) == (1, 1)
        and position(22, MESH, 4) == (3, 3)
        and position(3, LINEAR, 2) == (1, 1)
    )
    assert position(4, MESH, 2) is None  # column xlen+1 holds a DRAM port, not a core
    assert core_label(5, MESH, 2) == "5 (0,1)"


def test_one_damaged_workload_does_not_change_the_dialect(resnet: dict[str, Any]) -> None:
    from irtools.dialects import DOCUMENTED, core_dialect

    documented = json.loads(
        (ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json").read_bytes()
    )
    core = documented["0"] * 3
    core[0] = {**core[0], "ifmap": {"lower": [0, 0, 0, 0]}}  # damaged into the raw shape
    assert core_dialect(core) is DOCUMENTED
    assert core_dialect(resnet["1"]) is RAW
    assert core_dialect([]) is None
