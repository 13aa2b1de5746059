"""read_bytes: every way a file can fail to be RFC 8259 JSON becomes a located finding, never an exception."""

from __future__ import annotations

import codecs
import json
from typing import Any

import pytest

from irtools.findings import Finding, Severity
from irtools.loading.reader import RawDocument, read_bytes


def only(doc: RawDocument) -> Finding:
    """The single finding of a document that could not be read."""
    assert doc.data is None
    assert not doc.ok
    [finding] = doc.findings
    assert (finding.code, finding.severity, finding.pointer) == ("GIR100", Severity.ERROR, "")
    return finding


def where(finding: Finding) -> tuple[int | None, int | None]:
    return finding.line, finding.column


@pytest.mark.parametrize(
    "data",
    [b'{"a": [1, 2.5, "x", null, true, false, {}]}', b"[]", b"0", b'"text"', b'\n\n  {"a": 1}\n'],
)
def test_valid_json_has_no_findings(data: bytes) -> None:
    doc = read_bytes(data)
    assert doc.ok
    assert doc.findings == []
    assert doc.data == json.loads(data)


def test_non_ascii_utf8_is_fine() -> None:
    doc = read_bytes('{"layer_name": "卷积_1 – conv"}'.encode())
    assert doc.ok and doc.findings == []
    assert doc.data == {"layer_name": "卷积_1 – conv"}


# --- empty and whitespace --------------------------------------------------------------------------------


def test_empty() -> None:
    finding = only(read_bytes(b""))
    assert finding.message == "file is empty"
    assert where(finding) == (1, 1)


@pytest.mark.parametrize("data", [b" ", b"\n", b"\r\n\t  \n", b"\xef\xbb\xbf  \n"])
def test_whitespace_only(data: bytes) -> None:
    doc = read_bytes(data)
    assert doc.data is None and not doc.ok
    errors = [f for f in doc.findings if f.severity is Severity.ERROR]
    assert [(f.code, f.message, where(f)) for f in errors] == [
        ("GIR100", "file holds only whitespace", (1, 1))
    ]


# --- syntax errors: line and column of the problem ------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("{", 1, 2, "Expecting property name enclosed in double quotes"),
        ('{\n  "xlen": ', 2, 11, "Expecting value"),
        ('{\n  "a": [1,\n  2', 3, 4, "Expecting ',' delimiter"),
        ('{\n "xlen": 1\n "ylen": 1\n}', 3, 2, "Expecting ',' delimiter"),
        ('{"a": 1,}', 1, 9, None),  # the message differs between Python versions
        ("{'a': 1}", 1, 2, "Expecting property name enclosed in double quotes"),
        ('{"a": 1}\n{"b": 2}', 2, 1, "Extra data"),
        ('{"a": "line\nbreak"}', 1, 12, "Invalid control character at"),
        ("// comment\n{}", 1, 1, "Expecting value"),
        ('{"a": 1}\r\n\r\n  x', 3, 3, "Extra data"),
    ],
    ids=[
        "open-brace",
        "missing-value",
        "cut-in-list",
        "missing-comma",
        "trailing-comma",
        "single-quotes",
        "two-documents",
        "raw-newline-in-string",
        "comment",
        "crlf",
    ],
)
def test_syntax_error_location(text: str, line: int, column: int, message: str | None) -> None:
    finding = only(read_bytes(text.encode()))
    assert finding.message.startswith("invalid JSON: ")
    if message is not None:
        assert finding.message == f"invalid JSON: {message}"
    assert where(finding) == (line, column)


def test_location_counts_characters_not_bytes() -> None:
    # "é" is two bytes in UTF-8 but one column for the person reading the file.
    finding = only(read_bytes('{"é": 1 "b": 2}'.encode()))
    assert where(finding) == (1, 9)


# --- encodings -------------------------------------------------------------------------------------------

SAMPLE = '{"xlen": 1, "ylen": 1}'


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (codecs.BOM_UTF16_LE + SAMPLE.encode("utf-16-le"), "file is UTF-16-encoded; RFC 8259 requires UTF-8"),
        (codecs.BOM_UTF16_BE + SAMPLE.encode("utf-16-be"), "file is UTF-16-encoded; RFC 8259 requires UTF-8"),
        (SAMPLE.encode("utf-16"), "file is UTF-16-encoded; RFC 8259 requires UTF-8"),
        (codecs.BOM_UTF32_LE + SAMPLE.encode("utf-32-le"), "file is UTF-32-encoded; RFC 8259 requires UTF-8"),
        (codecs.BOM_UTF32_BE + SAMPLE.encode("utf-32-be"), "file is UTF-32-encoded; RFC 8259 requires UTF-8"),
        (SAMPLE.encode("utf-32"), "file is UTF-32-encoded; RFC 8259 requires UTF-8"),
        (SAMPLE.encode("utf-16-le"), "file looks UTF-16/UTF-32-encoded (NUL bytes); RFC 8259 requires UTF-8"),
        (SAMPLE.encode("utf-16-be"), "file looks UTF-16/UTF-32-encoded (NUL bytes); RFC 8259 requires UTF-8"),
        (SAMPLE.encode("utf-32-le"), "file looks UTF-16/UTF-32-encoded (NUL bytes); RFC 8259 requires UTF-8"),
        (SAMPLE.encode("utf-32-be"), "file looks UTF-16/UTF-32-encoded (NUL bytes); RFC 8259 requires UTF-8"),
    ],
    ids=[
        "utf16le-bom",
        "utf16be-bom",
        "utf16-native-bom",
        "utf32le-bom",
        "utf32be-bom",
        "utf32-native-bom",
        "utf16le",
        "utf16be",
        "utf32le",
        "utf32be",
    ],
)
def test_wide_encodings(data: bytes, message: str) -> None:
    finding = only(read_bytes(data))
    assert finding.message == message
    assert where(finding) == (1, 1)


def test_utf32_le_bom_is_not_mistaken_for_utf16() -> None:
    # The UTF-32-LE BOM starts with the UTF-16-LE BOM; the longer one must be tried first.
    finding = only(read_bytes(codecs.BOM_UTF32_LE + b"{\x00\x00\x00}\x00\x00\x00"))
    assert "UTF-32" in finding.message


def test_utf8_bom_is_a_warning_and_the_document_is_read() -> None:
    doc = read_bytes(codecs.BOM_UTF8 + SAMPLE.encode())
    assert doc.ok
    assert doc.data == {"xlen": 1, "ylen": 1}
    [finding] = doc.findings
    assert (finding.code, finding.severity, finding.pointer) == ("GIR100", Severity.WARNING, "")
    assert finding.message == "UTF-8 byte order mark at the start of the file"
    assert where(finding) == (1, 1)


def test_utf8_bom_then_syntax_error_keeps_both_findings() -> None:
    doc = read_bytes(codecs.BOM_UTF8 + b'{"a": }')
    assert doc.data is None and not doc.ok
    assert [(f.severity, f.message) for f in doc.findings] == [
        (Severity.WARNING, "UTF-8 byte order mark at the start of the file"),
        (Severity.ERROR, "invalid JSON: Expecting value"),
    ]
    # The column is that of the text after the BOM, as an editor shows it.
    assert where(doc.findings[1]) == (1, 7)


@pytest.mark.parametrize(
    ("data", "byte", "offset", "line", "column"),
    [
        (b'{"a": "\xff"}', 0xFF, 7, 1, 8),
        (b'{\n  "layer_name": "conv\xff1"\n}', 0xFF, 23, 2, 22),
        (b'{"a": "\xc3"}', 0xC3, 7, 1, 8),  # a truncated two-byte sequence
        (b'{"a": "\xed\xa0\x80"}', 0xED, 7, 1, 8),  # an encoded surrogate (CESU-8)
        (b'{"\xc3\xa9": "\xe9t\xe9"}', 0xE9, 8, 1, 8),  # Latin-1 "é" after a valid UTF-8 one
        (b"\x89PNG\r\n\x1a\n", 0x89, 0, 1, 1),
    ],
    ids=["ff", "second-line", "truncated-sequence", "surrogate", "latin1", "png"],
)
def test_invalid_utf8_byte(data: bytes, byte: int, offset: int, line: int, column: int) -> None:
    # The offset is in bytes (for hex editors); line and column are in characters (for text editors).
    finding = only(read_bytes(data))
    assert finding.message == f"invalid UTF-8 byte 0x{byte:02x} at byte offset {offset}"
    assert where(finding) == (line, column)


@pytest.mark.parametrize("data", [bytes(range(256)), b"\x00", b"\x00\x00\x00\x00", b"\xfe", b"\xff\xfe"])
def test_binary_never_raises(data: bytes) -> None:
    doc = read_bytes(data)
    assert doc.data is None and not doc.ok
    assert [f.code for f in doc.findings] == ["GIR100"]
    assert doc.findings[0].line == 1


# --- numbers ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "constant"),
    [
        ("NaN", 1, 1, "NaN"),
        ('{"a": Infinity}', 1, 7, "Infinity"),
        ('{"a": [1,\n  -Infinity]}', 2, 3, "-Infinity"),
        ('{"NaN": "Infinity", "b": NaN}', 1, 26, "NaN"),
        ('{"s": "say \\"NaN\\"", "b": NaN}', 1, 27, "NaN"),
        # Lines after the constant count for nothing: its own line and column, not the file's last.
        ('{"a": NaN,\n "b": [\n  1]}', 1, 7, "NaN"),
        ('{"a": 1,\n "b": NaN,\n "c": 2\n}', 2, 7, "NaN"),
    ],
    ids=[
        "bare",
        "infinity",
        "negative",
        "after-strings",
        "after-escaped-quotes",
        "lines-after",
        "middle-line",
    ],
)
def test_non_finite_numbers(text: str, line: int, column: int, constant: str) -> None:
    finding = only(read_bytes(text.encode()))
    assert finding.message == f"{constant} is not a JSON number (RFC 8259 allows only finite numbers)"
    assert where(finding) == (line, column)


def test_big_integers_are_kept_exactly() -> None:
    # The reader does not cap integers; the models do (GIR101), so the message can show the value.
    doc = read_bytes(b'{"size": 1000000000000000000000000000000}')
    assert doc.ok and doc.data == {"size": 10**30}


def test_integer_beyond_python_digit_limit() -> None:
    finding = only(read_bytes(b'{"size": ' + b"9" * 5000 + b"}"))
    assert finding.message.startswith("invalid JSON: Exceeds the limit")


def test_integral_float_stays_a_float() -> None:
    # 1.0 must reach the models as a float so strict integer fields can reject it.
    doc = read_bytes(b'{"a": 1.0, "b": 1}')
    assert type(doc.data["a"]) is float and type(doc.data["b"]) is int


# --- nesting ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000],
    ids=["open", "closed-array", "closed-object"],
)
def test_deep_nesting(data: bytes) -> None:
    finding = only(read_bytes(data))
    assert finding.message == "nesting too deep to parse (more than about 1000 levels)"
    assert where(finding) == (1, 1)


def test_moderate_nesting_is_fine() -> None:
    doc = read_bytes(b"[" * 200 + b"]" * 200)
    assert doc.ok


# --- duplicate keys --------------------------------------------------------------------------------------


def dup_findings(doc: RawDocument) -> list[tuple[str, str]]:
    return sorted((f.pointer, f.message) for f in doc.findings if f.code == "GIR102")


def test_duplicate_key_pointer_and_count() -> None:
    doc = read_bytes(b'{"0": [{"buffer": [{"address": 1, "size": 2, "address": 3, "address": 5}]}]}')
    assert doc.ok  # the document is still usable; the last value wins
    assert doc.data["0"][0]["buffer"][0]["address"] == 5
    assert [(f.severity, f.pointer) for f in doc.findings] == [(Severity.ERROR, "/0/0/buffer/0/address")]
    assert doc.findings[0].message.startswith("key 'address' appears 3 times in one object")


def test_duplicate_keys_in_several_objects() -> None:
    doc = read_bytes(b'{"a": 1, "a": 2, "b": {"c": 1, "c": 1}, "d": [{"e": 0, "e": 0, "f": 0, "f": 0}]}')
    assert [p for p, _ in dup_findings(doc)] == ["/a", "/b/c", "/d/0/e", "/d/0/f"]


def test_duplicate_key_pointer_escapes_slash_and_tilde() -> None:
    doc = read_bytes(b'{"a/b": {"~x": 1, "~x": 2}}')
    assert [p for p, _ in dup_findings(doc)] == ["/a~1b/~0x"]


def test_same_key_in_sibling_objects_is_not_a_duplicate() -> None:
    doc = read_bytes(b'[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]')
    assert doc.ok and doc.findings == []


# --- RawDocument -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("findings", "ok"),
    [
        ([], True),
        ([Finding("GIR100", Severity.WARNING, "bom")], True),
        ([Finding("GIR102", Severity.ERROR, "dup", "/a")], True),
        ([Finding("GIR100", Severity.ERROR, "bad")], False),
    ],
)
def test_raw_document_ok(findings: list[Finding], ok: bool) -> None:
    data: Any = None if not ok else {}
    assert RawDocument(data, findings).ok is ok
