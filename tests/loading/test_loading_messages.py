"""GIR101's exact messages: one bad value in the clean 2x2 sample, the finding a user reads for it.

Each row edits one value (or deletes one key) and pins the GIR101 finding that names it, pointer and
message, on both cores. The summary finding ("N entries ... left out") is left aside here: its own
tests are in test_loading_boundaries.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from irtools.loading import schema_errors
from irtools.loading.load import load_ir
from irtools.loading.mesh import LINEAR, MeshProblem, mesh_problem
from irtools.loading.reader import read_bytes
from irtools.loading.schema_errors import describe_value
from irtools.validate import validate_file
from tests.mutants.edits import Doc, Row, check, mesh_doc, rows

DELETE = object()
"""Marks a row whose edit deletes the key instead of setting it."""

WL = ("0", 0)
OFMAP = (*WL, "ofmap", 0)
BUFFER = (*WL, "buffer", 0)


def _edit(doc: Doc, path: tuple[str | int, ...], value: Any) -> Doc:
    node: Any = doc
    for token in path[:-1]:
        node = node[token]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


def _errors(tmp: Path, path: tuple[str | int, ...], value: Any) -> list[Row]:
    found = check(tmp, _edit(mesh_doc(), path, value))
    return [row for row in rows(found, "GIR101", info=True) if "left out" not in row[2]]


@pytest.mark.parametrize(
    ("path", "value", "pointer", "message"),
    [
        # the value's JSON type and its rendering
        ((*WL, "time"), "fast", "/0/0/time", "expected an integer, got string 'fast'"),
        ((*WL, "time"), False, "/0/0/time", "expected an integer, got boolean false"),
        ((*WL, "time"), 1.5, "/0/0/time", "expected an integer, got number 1.5"),
        ((*WL, "time"), [], "/0/0/time", "expected an integer, got array of 0 items"),
        ((*WL, "time"), [1], "/0/0/time", "expected an integer, got array of 1 item"),
        ((*WL, "time"), [1, 2], "/0/0/time", "expected an integer, got array of 2 items"),
        ((*WL, "time"), {"a": 1}, "/0/0/time", "expected an integer, got object of 1 item"),
        # a rendering of 40 characters is shown whole, one of 41 is cut to 37 and "..."
        ((*WL, "time"), "x" * 38, "/0/0/time", f"expected an integer, got string '{'x' * 38}'"),
        ((*WL, "time"), "x" * 39, "/0/0/time", f"expected an integer, got string '{'x' * 36}..."),
        # each expected type by name
        ((*WL, "layer_name"), 1, "/0/0/layer_name", "expected a string, got integer 1"),
        ((*BUFFER, "newly_added"), 3, "/0/0/buffer/0/newly_added", "expected a boolean, got integer 3"),
        ((*WL, "buffer"), {}, "/0/0/buffer", "expected an array, got object of 0 items"),
        ((*OFMAP,), [1], "/0/0/ofmap/0", "expected an object, got array of 1 item"),
        (("-1", "in", 0, "core_id"), "a", "/-1/in/0/core_id", "expected an integer, got string 'a'"),
        # bounds
        ((*WL, "time"), -1, "/0/0/time", "expected a value >= 0, got integer -1"),
        ((*BUFFER, "align"), 0, "/0/0/buffer/0/align", "expected a value >= 1, got integer 0"),
        (
            (*WL, "workload_id"),
            2**63,
            "/0/0/workload_id",
            "expected a value <= 9223372036854775807, got integer 9223372036854775808",
        ),
        # boxes of the wrong length: the expected and the actual count
        ((*OFMAP, "lower"), [0, 0, 0], "/0/0/ofmap/0/lower", "expected an array of 4 items, got 3"),
        ((*OFMAP, "lower"), [0] * 5, "/0/0/ofmap/0/lower", "expected an array of 4 items, got 5"),
        ((*OFMAP, "upper"), [], "/0/0/ofmap/0/upper", "expected an array of 4 items, got 0"),
        # literals and tagged unions
        (
            (*BUFFER, "type"),
            "bogus",
            "/0/0/buffer/0/type",
            "expected 'ifmap', 'ofmap' or 'weight', got string 'bogus'",
        ),
        (
            ("-1", "out", 0, "type"),
            "bogus",
            "/-1/out/0/type",
            "expected 'weight' or 'fmap', got string 'bogus'",
        ),
        (
            (*OFMAP, "destination", 0, "type"),
            "bogus",
            "/0/0/ofmap/0/destination/0",
            "expected 'type' to be one of 'core', 'DRAM', got 'bogus'",
        ),
        (
            (*OFMAP, "destination", 0, "type"),
            DELETE,
            "/0/0/ofmap/0/destination/0",
            "missing required key 'type'",
        ),
        # missing keys
        ((*BUFFER, "type"), DELETE, "/0/0/buffer/0", "missing required key 'type'"),
        ((*WL, "time"), DELETE, "/0/0", "missing required key 'time'"),
    ],
)
def test_a_bad_value_gets_its_exact_message(
    tmp_path: Path, path: tuple[str | int, ...], value: Any, pointer: str, message: str
) -> None:
    """The message names what the format expects and what the file holds, at the value's pointer."""
    assert _errors(tmp_path, path, value) == [("GIR101", pointer, message)]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (True, "boolean true"),
        (False, "boolean false"),
        (0, "integer 0"),
        (-2.5, "number -2.5"),
        ("", "string ''"),
        ([], "array of 0 items"),
        ({}, "object of 0 items"),
        ({"k": [1, 2]}, "object of 1 item"),
        ("é" * 38, f"string '{'é' * 38}'"),
        (b"raw", "bytes b'raw'"),
    ],
)
def test_describe_value_names_the_json_type(value: object, shown: str) -> None:
    """describe_value renders a JSON value by its JSON type name; anything else by its Python type."""
    assert describe_value(value) == shown


def _many_errors_doc(count: int) -> bytes:
    """The 2x2 sample with `count` copies of core 0's first workload, each with `time` a string."""
    doc = mesh_doc()
    bad = copy.deepcopy(doc["0"][0]) | {"time": "slow"}
    doc["0"] = [doc["0"][0]] + [bad] * count
    return json.dumps(doc).encode()


def _gir101(count: int) -> list[tuple[str, str]]:
    loaded = load_ir(_many_errors_doc(count))
    return [
        (f.pointer, f.message) for f in loaded.findings if f.code == "GIR101" and "left out" not in f.message
    ]


def _slow(index: int) -> tuple[str, str]:
    return (f"/0/{index}/time", "expected an integer, got string 'slow'")


@pytest.mark.parametrize("detailed", [schema_errors.DETAILED_ERRORS, 4])
@pytest.mark.parametrize(("count", "shown"), [(3, 3), (6, 6), (7, 6), (12, 6)])
def test_past_the_detailed_limit_the_errors_read_the_same(
    monkeypatch: pytest.MonkeyPatch, detailed: int, count: int, shown: int
) -> None:
    """Past DETAILED_ERRORS errors only the errors shown are decoded (from the JSON form, their values read
    back from the file): the findings are the same as the detailed path's, the first MAX_SCHEMA_FINDINGS
    in file order, then the count of the rest. Both limits are lowered so a small file crosses them."""
    monkeypatch.setattr(schema_errors, "DETAILED_ERRORS", detailed)
    monkeypatch.setattr(schema_errors, "MAX_SCHEMA_FINDINGS", 6)
    rest = [("", f"{count - shown} more schema errors not shown")] if count > shown else []
    assert _gir101(count) == [_slow(i) for i in range(1, shown + 1)] + rest


@pytest.mark.parametrize("detailed", [schema_errors.DETAILED_ERRORS, 1])
def test_a_key_that_is_no_unicode_text_is_named_past_the_detailed_limit_too(
    monkeypatch: pytest.MonkeyPatch, detailed: int
) -> None:
    """A key written with a lone surrogate escape (`"k\\ud800"`, valid JSON, no Unicode text) is the
    input the finding shows, on both paths: pydantic reports the error at the object, and the path past
    DETAILED_ERRORS reads the object back from the file, so it must find the key in it."""
    monkeypatch.setattr(schema_errors, "DETAILED_ERRORS", detailed)
    text = _many_errors_doc(1).decode()
    second_key = text.index(', "', text.index('"ofmap": [{')) + 2  # not first: the key that fails is named
    text = text[:second_key] + '"k\\ud800": 1, ' + text[second_key:]
    found = [(f.pointer, f.message) for f in load_ir(text.encode()).findings if f.code == "GIR101"]
    assert found[0] == (
        "/0/0/ofmap/0/destination/0",
        "Input should be a valid string, unable to parse raw data as a unicode string, got string 'k\\ud800'",
    )


def _found(tmp: Path, doc: Doc, *codes: str) -> list[Row]:
    found = check(tmp, doc)
    return [row for code in codes for row in rows(found, code, info=True)]


NO_DRAM_IN = [
    ("GIR205", "/2/1/ofmap/0", "ofmap sends transfer 14 to DRAM but the DRAM in list has no entry for it"),
    ("GIR205", "/3/0/ofmap/0", "ofmap sends transfer 13 to DRAM but the DRAM in list has no entry for it"),
]


def test_a_broken_dram_out_entry_is_left_out_and_the_next_keeps_its_place(tmp_path: Path) -> None:
    """`out` 0 breaks the schema and is left out; `out` 1, sent to a workload that does not use it, is
    reported at its own place in the file (/-1/out/1), not at its place among the entries kept."""
    doc = mesh_doc()
    doc["-1"]["out"][0]["size"] = "x"
    doc["-1"]["out"][1]["destination"][0]["core_id"] = 0
    assert _found(tmp_path, doc, "GIR101", "GIR201", "GIR203") == [
        ("GIR101", "/-1/out/0", "1 entries with schema errors were left out of the semantic checks"),
        ("GIR101", "/-1/out/0/size", "expected an integer, got string 'x'"),
        (
            "GIR203",
            "/-1/out/1/destination/0",
            "destination core 0 workload 0 does not use transfer 1 (not in its ifmap, weight, buffer or WL0)",
        ),
    ]


def test_a_dram_side_that_is_no_array_counts_as_empty_and_the_other_side_is_kept(tmp_path: Path) -> None:
    """`in` an object: one GIR101, the ofmaps sent to DRAM have no `in` entry (GIR205); `out` keeps
    its valid entries (no GIR201 on their readers), its bad 7th entry is left out at /-1/out/6."""
    doc = mesh_doc()
    doc["-1"]["in"] = {"a": 1}
    doc["-1"]["out"].append(5)
    assert _found(tmp_path, doc, "GIR101", "GIR201", "GIR205") == [
        ("GIR101", "/-1/in", "expected an array, got object of 1 item"),
        ("GIR101", "/-1/out/6", "1 entries with schema errors were left out of the semantic checks"),
        ("GIR101", "/-1/out/6", "expected an object, got integer 5"),
        *NO_DRAM_IN,
    ]


def test_a_dram_section_that_is_no_object_leaves_both_sides_empty(tmp_path: Path) -> None:
    """`-1` an array: nothing comes from DRAM (GIR201 on every DRAM read) and nothing goes to it (GIR205)."""
    doc = mesh_doc()
    doc["-1"] = [1]
    found = _found(tmp_path, doc, "GIR101", "GIR205")
    assert found == [("GIR101", "/-1", "expected an object, got array of 1 item"), *NO_DRAM_IN]
    assert [row[1] for row in rows(check(tmp_path, doc), "GIR201")] == [
        "/0/0/ifmap/0",
        "/0/0/weight",
        "/1/0/ifmap/0",
        "/1/0/weight",
        "/2/0/weight",
        "/3/0/weight",
    ]


@pytest.mark.parametrize(
    ("edit", "pointer", "message"),
    [
        (
            (("0", 0, "wl0_buffer", 0, "lower"), [0, 0, 3, 0]),
            "/0/0/wl0_buffer/0",
            "lower [0, 0, 3, 0] > upper [15, 2, 2, 2] in dimension 2",
        ),
        (
            (("0", 0, "tile_info", "tile_num_0", "ifmap_lower"), [9, 9, 9, 9]),
            "/0/0/tile_info/tile_num_0/ifmap_lower",
            "ifmap_lower: lower [9, 9, 9, 9] > upper [0, 2, 16, 31] in dimensions 0, 1",
        ),
        (
            (("-1", "in", 1, "lower"), [1, 16, 0, 0]),
            "/-1/in/1",
            "lower [1, 16, 0, 0] > upper [0, 31, 31, 31] in dimension 0",
        ),
    ],
)
def test_an_inverted_range_is_named_where_the_file_holds_it(
    tmp_path: Path, edit: tuple[tuple[str | int, ...], Any], pointer: str, message: str
) -> None:
    """GIR504 on a WL0 entry, a tile's ifmap range (its key in the pointer and the message) and a DRAM
    entry: each of the index's lower/upper pairs, at its own pointer."""
    assert rows(check(tmp_path, _edit(mesh_doc(), *edit)), "GIR504") == [("GIR504", pointer, message)]


@pytest.mark.parametrize(("count", "cores"), [(1, "1 core"), (2, "2 cores"), (5, "5 cores")])
def test_an_implausible_mesh_counts_its_cores_in_words(count: int, cores: str) -> None:
    """GIR506's message: the mesh, the count of cores (singular for one) and the bound they allow."""
    problem = mesh_problem(list(range(count)), LINEAR, 100, 100)
    assert problem is not None
    allowed = max(4 * count, 16)
    assert problem.message == (
        f"a 100x100 mesh (10,000 positions) for {cores}: more than the {allowed} allowed (4 per core, at least 16)"
    )


def test_a_duplicate_key_is_named_with_its_count(tmp_path: Path) -> None:
    """GIR102: the key, how often one object writes it, and which value this tool keeps."""
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(mesh_doc()).replace('"time": ', '"time": 1, "time": 2, "time": ', 1))
    found = [(f.code, f.pointer, f.message) for f in validate_file(str(path)).findings if f.code == "GIR102"]
    assert found == [
        (
            "GIR102",
            "/0/0/time",
            (
                "key 'time' appears 3 times in one object; JSON readers disagree on which value wins "
                "(this tool keeps the last)"
            ),
        )
    ]


@pytest.mark.parametrize(
    ("cores", "xlen", "ylen", "expected"),
    [
        (
            [0, 1, 2, 3, 2000],
            2,
            2,
            MeshProblem(
                "core 2000 at (0,1000) lies so far off the 2x2 mesh that the mesh holding every core has 2,002 "
                "positions for 5 cores: more than the 20 allowed (4 per core, at least 16)",
                "2000",
                2000,
            ),
        ),
        (
            [0, 1, 2, 3],
            200,
            2,
            MeshProblem(
                "a 200x2 mesh (400 positions) for 4 cores: more than the 16 allowed (4 per core, at least 16)",
                "xlen",
            ),
        ),
        (
            [0, 1, 2, 3],
            2,
            200,
            MeshProblem(
                "a 2x200 mesh (400 positions) for 4 cores: more than the 16 allowed (4 per core, at least 16)",
                "ylen",
            ),
        ),
    ],
)
def test_an_implausible_mesh_names_the_key_to_fix(
    cores: list[int], xlen: int, ylen: int, expected: MeshProblem
) -> None:
    """GIR506 points at what made the mesh too big: the far core's key, or the longer side's."""
    assert mesh_problem(cores, LINEAR, xlen, ylen) == expected


def test_an_integer_too_long_to_parse_is_invalid_json_at_the_start() -> None:
    """Python's int parsing limit (4300 digits) stops the parse: GIR100 at line 1, column 1, with the reason."""
    found = read_bytes(b'{"a": ' + b"1" * 5000 + b"}").findings
    assert [(f.code, f.message, f.line, f.column) for f in found] == [
        (
            "GIR100",
            "invalid JSON: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits",
            1,
            1,
        )
    ]


@pytest.mark.parametrize(("tid", "dangling"), [(10, []), ("ten", ["/0/0/buffer/2"])])
def test_a_left_out_ofmap_entry_still_produces_its_transfer(
    tmp_path: Path, tid: object, dangling: list[str]
) -> None:
    """Conv_0's ofmap 0 breaks the schema (its `size`) and is left out, but its transfer 10 is still
    produced, so its uses (Conv_0's own L2 entry first, then the readers on cores 2 and 3) are not
    dangling (GIR201) - unless the id itself is bad: then one GIR201 at the first use."""
    doc = mesh_doc()
    doc["0"][0]["ofmap"][0] |= {"size": "x", "transfer_id": tid}
    assert [row[1] for row in rows(check(tmp_path, doc), "GIR201")] == dangling
