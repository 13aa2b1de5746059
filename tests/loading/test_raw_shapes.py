"""What the typed decoder makes of two shapes of Gemini's own raw files: keys the scheduler leaves out,
and weight boxes of 3 or 4 numbers (a box of any other length is a schema error, not a box)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from irtools.loading.load import load_ir
from irtools.validate import validate_file
from tests.conftest import FIXTURES

RAW = FIXTURES / "gemini-raw" / "resnet_2x2_b1_ir.json"
pytestmark = pytest.mark.skipif(not RAW.exists(), reason="../shared/fixtures not present")


def _written(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture(scope="module")
def raw_doc() -> dict[str, Any]:
    return dict(json.loads(RAW.read_text()))


def test_left_out_keys_read_as_empty_lists(tmp_path: Path, raw_doc: dict[str, Any]) -> None:
    """A workload without `buffer` and an ifmap without `transfer_id` (the scheduler writes neither when
    empty) read as [], as the models' defaults say, on the decoder's path."""
    doc = copy.deepcopy(raw_doc)
    workload = doc["1"][0]
    del workload["buffer"]
    del workload["ifmap"]["transfer_id"]
    loaded = load_ir(_written(tmp_path, doc))
    assert loaded.ir is not None
    read = loaded.ir.cores["1"][0]
    assert read.buffer == []
    assert read.ifmap[0].transfer_id == []


@pytest.mark.parametrize("length", [3, 4, 5, 2])
def test_a_weight_box_has_3_or_4_numbers(tmp_path: Path, raw_doc: dict[str, Any], length: int) -> None:
    """`lower` of a weight is an output channel or a box of 3 (taken from an ofmap) or 4 numbers."""
    doc = copy.deepcopy(raw_doc)
    doc["1"][0]["weight"]["lower"] = [0] * length
    found = {
        (f.pointer, f.message) for f in validate_file(_written(tmp_path, doc)).findings if f.code == "GIR101"
    }
    if length in (3, 4):
        assert not found
    else:
        assert ("/1/0/weight/lower", f"expected an array of 4 items, got {length}") in found


def test_a_broken_top_level_keeps_the_dram_section_and_reports_in_model_order(
    tmp_path: Path, raw_doc: dict[str, Any]
) -> None:
    """With `top_batch_cut` a string the file is a PartialIR that still holds its 363 DRAM reads (the
    transfer rules and DRAM tables read them); the top level's error comes before a core's, as the
    models are ordered (DRAM, top level, cores), whichever part the reader met first."""
    doc = copy.deepcopy(raw_doc)
    doc["top_batch_cut"] = "x"
    core = [k for k in doc if k.isdigit()][1]
    doc[core][0]["time"] = -1
    loaded = load_ir(_written(tmp_path, doc))
    assert type(loaded.ir).__name__ == "PartialIR"
    assert len(loaded.ir.dram.out) == len(raw_doc["-1"]["out"]) == 363
    assert len(loaded.ir.dram.in_) == len(raw_doc["-1"]["in"]) == 288
    assert [(f.pointer, f.message) for f in loaded.findings if f.code == "GIR101"][:2] == [
        ("/top_batch_cut", "expected an integer, got string 'x'"),
        (f"/{core}/0/time", "expected a value >= 0, got integer -1"),
    ]


@pytest.mark.parametrize(
    ("text", "described"),
    [(b"[1, 2]", "array of 2 items"), (b"7", "integer 7"), (b"null", "null"), (b'"x"', "string 'x'")],
)
def test_a_document_that_is_not_an_object_says_what_it_is(text: bytes, described: str) -> None:
    loaded = load_ir(text, "odd.json")
    assert loaded.ir is None
    assert [(f.code, f.pointer, f.message) for f in loaded.findings] == [
        ("GIR101", "", f"expected an object, got {described}")
    ]
