"""Pointers to line and column: every layout a real file has (pretty, minified, CRLF), escaped keys,
non-ASCII text, and a property check that each offset really holds the value its pointer names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.positions import line_columns, locate, offsets, with_positions
from tests.budget import examples

DOC = {"-1": {"in": [{"id": 1}, {"id": 2}]}, "0": [{"buffer": [{"address": 0}, {"address": 1024}]}]}


def line_of(text: str, pointer: str) -> str:
    line, _ = locate(text, [pointer])[pointer]
    return text.splitlines()[line - 1]


@pytest.mark.parametrize("indent", [None, 1, 4])
def test_pretty_and_minified(indent: int | None) -> None:
    text = json.dumps(DOC, indent=indent)
    where = locate(text, ["/0/0/buffer/1/address", "/-1/in/1", ""])
    if indent is None:
        assert {line for line, _ in where.values()} == {1}
        _, column = where["/0/0/buffer/1/address"]
        assert text[column - 1 :].startswith('"address": 1024')
    else:
        assert line_of(text, "/0/0/buffer/1/address").strip() == '"address": 1024'
        assert line_of(text, "/-1/in/1").strip() == "{"
    assert where[""] == (1, 1)


def test_crlf_and_lone_cr_count_as_line_breaks() -> None:
    lf = json.dumps(DOC, indent=2)
    crlf = lf.replace("\n", "\r\n")
    cr = lf.replace("\n", "\r")
    pointers = ["/0/0/buffer/1/address", "/-1/in/1/id"]
    assert locate(crlf, pointers) == locate(lf, pointers) == locate(cr, pointers)


def test_escaped_pointer_tokens_and_json_escapes_in_keys() -> None:
    text = '{\n  "a/b": {\n    "c~d": 1,\n    "\\u00e9t\\u00e9": [true,\n      false]\n  }\n}'
    where = locate(text, ["/a~1b/c~0d", "/a~1b/été/1"])
    assert where["/a~1b/c~0d"] == (3, 5)
    assert where["/a~1b/été/1"] == (5, 7)


def test_columns_count_code_points() -> None:
    text = '{"名前": "ü", "x": 1}'
    assert locate(text, ["/x"])["/x"] == (1, 13)
    assert text[12:15] == '"x"'


def test_missing_key_falls_back_to_the_object_that_lacks_it() -> None:
    text = json.dumps(DOC, indent=2)
    assert (
        locate(text, ["/0/0/buffer/1/size"])["/0/0/buffer/1/size"]
        == locate(text, ["/0/0/buffer/1"])["/0/0/buffer/1"]
    )
    assert locate(text, ["/0/7/buffer"])["/0/7/buffer"] == locate(text, ["/0"])["/0"]


def test_repeated_key_is_placed_at_its_last_occurrence() -> None:
    text = '{"a": 1,\n "a": 2}'
    assert locate(text, ["/a"])["/a"] == (2, 2)


def test_index_tokens_match_only_arrays_and_only_exactly() -> None:
    text = '{"0": [10, 11], "01": 5}'
    assert text[offsets(text, ["/0/1"])["/0/1"] :].startswith("11")
    assert text[offsets(text, ["/01"])["/01"] :].startswith('"01"')
    assert offsets(text, ["/0/01"])["/0/01"] == offsets(text, ["/0"])["/0"]


def test_broken_text_keeps_what_was_placed() -> None:
    assert locate('{"a": [1, 2', ["/a/1", "/b"]) == {"/a/1": (1, 11), "/b": (1, 1)}
    assert locate("", [""]) == {}


def test_line_columns_in_one_pass() -> None:
    text = "ab\ncd\r\nef\rgh"
    assert line_columns(text, [0, 1, 3, 7, 11]) == {0: (1, 1), 1: (1, 2), 3: (2, 1), 7: (3, 1), 11: (4, 2)}


def test_with_positions_fills_only_what_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "ir.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(DOC, indent=2).encode())
    given_line = Finding("GIR100", Severity.WARNING, "BOM", "", line=1, column=1)
    semantic = Finding("GIR302", Severity.ERROR, "overlap", "/0/0/buffer/1")
    out = with_positions(str(path), [given_line, semantic])
    assert out[0] is given_line
    # Columns start after the byte order mark: the entry's "{" is indented by 8 spaces.
    assert (out[1].line, out[1].column) == (18, 9)
    assert path.read_text(encoding="utf-8-sig").splitlines()[17] == "        {"
    assert with_positions(str(path), [semantic], max_bytes=10) == [semantic]
    assert with_positions(str(tmp_path / "gone.json"), [semantic]) == [semantic]


def test_unparsable_file_is_not_scanned(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"a": ')
    findings = [Finding("GIR100", Severity.ERROR, "invalid JSON", "", line=1, column=7)]
    assert with_positions(str(path), findings) == findings


# --- property: the offset of every pointer holds the value (or the key) it names ---------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


def _pointers(node: Any, base: str = "") -> list[str]:
    found = [base]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _pointers(value, jp.extend(base, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _pointers(value, jp.extend(base, index))
    return found


@settings(max_examples=examples(200), deadline=None)
@given(doc=json_values, indent=st.sampled_from([None, 0, 2]), crlf=st.booleans(), ascii=st.booleans())
def test_every_offset_holds_its_value(doc: Any, indent: int | None, crlf: bool, ascii: bool) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=ascii)
    if crlf:
        text = text.replace("\n", "\r\n")
    decoder = json.JSONDecoder()
    pointers = _pointers(doc)
    placed = offsets(text, pointers)
    assert set(placed) == set(pointers)
    for pointer, offset in placed.items():
        tokens = jp.split(pointer)
        parent = jp.resolve(doc, jp.join(*tokens[:-1])) if tokens else None
        if isinstance(parent, dict):
            key, after = json.decoder.scanstring(text, offset + 1)  # type: ignore[attr-defined]
            assert key == tokens[-1]
            offset = after + text[after:].index(":") + 1
            offset += len(text[offset:]) - len(text[offset:].lstrip())
        assert decoder.raw_decode(text, offset)[0] == jp.resolve(doc, pointer)


@settings(max_examples=examples(200), deadline=None)
@given(doc=st.dictionaries(st.text(max_size=4), json_values, max_size=5), indent=st.sampled_from([None, 2]))
def test_starting_at_the_loaders_members_places_what_the_whole_scan_places(
    doc: Any, indent: int | None
) -> None:
    """The loader's member offsets only let the scan skip members: every position is the same."""
    from irtools.loading.reader import read_members

    text = json.dumps(doc, indent=indent)
    members = read_members(text.encode())
    assert members is not None
    for _ in members:
        pass
    pointers = _pointers(doc) + ["/no such member", "/no such member/0"]
    assert offsets(text, pointers, members.offsets) == offsets(text, pointers)


def test_findings_of_a_real_file_are_placed_from_its_members() -> None:
    from irtools.loading.load import load_ir
    from irtools.validate import check_loaded

    path = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-raw" / "bert_2x2_b1_ir.json"
    loaded = load_ir(path)
    assert set(loaded.member_offsets) >= {"-1", "1", "2", "5", "6"}
    findings = [f for f in check_loaded(loaded) if f.pointer]
    fast = with_positions(str(path), findings, members=loaded.member_offsets)
    assert fast == with_positions(str(path), findings)
    # BERT's missing K^T source (GIR305) is on line 13117 of the file.
    assert any(f.code == "GIR305" and f.line == 13117 for f in fast)


# --- the file read in pieces: only the members named, lines counted chunk by chunk -------------------


@settings(max_examples=examples(200), deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=4), json_values, max_size=5),
    indent=st.sampled_from([None, 2]),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    ascii=st.booleans(),
    chunk=st.integers(1, 16),
)
def test_reading_in_pieces_places_what_reading_the_whole_file_places(
    doc: Any, indent: int | None, newline: str, ascii: bool, chunk: int
) -> None:
    """Tiny chunks put chunk boundaries everywhere, inside CRLFs too; a file outside ASCII is read whole."""
    import tempfile
    from unittest import mock

    from irtools.loading.reader import read_members

    text = json.dumps(doc, indent=indent, ensure_ascii=ascii).replace("\n", newline)
    members = read_members(text.encode())
    assert members is not None
    for _ in members:
        pass
    pointers = _pointers(doc) + ["/no such member", "/no such member/0"]
    findings = [Finding("GIR302", Severity.ERROR, "x", pointer) for pointer in pointers]
    with tempfile.TemporaryDirectory() as folder, mock.patch("irtools.positions._CHUNK", chunk):
        path = Path(folder) / "ir.json"
        path.write_bytes(text.encode())
        placed = with_positions(str(path), findings, members=members.offsets)
    whole = locate(text, pointers)
    assert {f.pointer: (f.line, f.column) for f in placed} == whole


def test_findings_at_the_root_read_only_the_files_start(tmp_path: Path) -> None:
    """The dialect's note and the mesh's numbering point at the root: placing them reads no member."""
    from unittest import mock

    path = tmp_path / "ir.json"
    path.write_bytes(b"\n\n  " + json.dumps(DOC, indent=2).encode())
    reads: list[int] = []
    real_open = open

    def counted(*args: Any, **kwargs: Any) -> Any:
        handle = real_open(*args, **kwargs)
        read = handle.read
        handle.read = lambda size=-1: reads.append(len(data := read(size))) or data  # type: ignore[method-assign]
        return handle

    note = Finding("GIR103", Severity.INFO, "raw dialect", "")
    with mock.patch("irtools.positions._CHUNK", 16), mock.patch("builtins.open", counted):
        out = with_positions(str(path), [note], members={"-1": (8, 14), "0": (100, 105)})
    assert (out[0].line, out[0].column) == (3, 3)
    assert sum(reads) < path.stat().st_size / 2  # the first chunk (twice: the root's, then its line)


def test_a_byte_outside_ascii_before_a_member_reads_the_file_whole(tmp_path: Path) -> None:
    """Member offsets count characters: after a non-ASCII character they are no byte offsets."""
    from irtools.loading.reader import read_members

    text = json.dumps({"é": 1, "0": [{"buffer": [1, 2]}]}, ensure_ascii=False, indent=2)
    path = tmp_path / "ir.json"
    path.write_bytes(text.encode())
    members = read_members(text.encode())
    assert members is not None
    for _ in members:
        pass
    finding = Finding("GIR302", Severity.ERROR, "overlap", "/0/0/buffer/1")
    out = with_positions(str(path), [finding], members=members.offsets)
    assert (
        (out[0].line, out[0].column) == locate(text, ["/0/0/buffer/1"])["/0/0/buffer/1"] == (7, 9)
    )  # the list's 2
