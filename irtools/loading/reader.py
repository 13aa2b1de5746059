"""Bytes to a raw JSON document, turning every way a file can fail to be JSON into findings.

The standard `json` module accepts things RFC 8259 forbids (UTF-16/32 input, NaN, Infinity) and
silently keeps the last of duplicate keys; this reader reports each of them instead.
"""

from __future__ import annotations

import codecs
import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from irtools import pointer as jp
from irtools.findings import Finding, Severity

_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", "gunzip"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"BZh", "bzip2", "bunzip2"),
    (b"PK\x03\x04", "zip", "unzip"),
)
"""The magic numbers of the archives an IR file travels in, and the command that unpacks each: such a file
is said to be one, not reported as its first byte that is no UTF-8."""
_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


@dataclass(slots=True)
class RawDocument:
    """A parsed JSON document (None when it could not be parsed) and the findings of reading it."""

    data: Any
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the bytes parsed as JSON (no GIR100 error)."""
        return not any(f.severity is Severity.ERROR and f.code == "GIR100" for f in self.findings)


class _DuplicateKeys(dict[str, Any]):
    """A JSON object that had repeated keys; remembers them so their pointers can be found later."""

    duplicates: dict[str, int]


class _NonFiniteNumber(ValueError):
    pass


def _decoder(duplicates_seen: list[bool]) -> json.JSONDecoder:
    def object_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        dup = _DuplicateKeys(obj)
        counts: dict[str, int] = {}
        for key, _ in pairs:
            counts[key] = counts.get(key, 0) + 1
        dup.duplicates = {k: n for k, n in counts.items() if n > 1}
        duplicates_seen.append(True)
        return dup

    return json.JSONDecoder(object_pairs_hook=object_hook, parse_constant=_reject_constant)


def _reject_constant(name: str) -> Any:
    raise _NonFiniteNumber(name)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: building millions of acyclic objects triggers it needlessly."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _invalid(message: str, line: int | None = None, column: int | None = None) -> Finding:
    return Finding("GIR100", Severity.ERROR, message, "", line=line, column=column)


def _decode(data: bytes, findings: list[Finding]) -> str | None:
    for magic, name, unpack in _COMPRESSED:
        if data.startswith(magic):
            findings.append(_invalid(f"file is {name}-compressed: decompress it first ({unpack})", 1, 1))
            return None
    for bom, name in _WIDE_BOMS:
        if data.startswith(bom):
            findings.append(_invalid(f"file is {name}-encoded; RFC 8259 requires UTF-8", 1, 1))
            return None
    if data.startswith(codecs.BOM_UTF8):
        findings.append(
            Finding(
                "GIR100",
                Severity.WARNING,
                "UTF-8 byte order mark at the start of the file",
                "",
                line=1,
                column=1,
            )
        )
        data = data[len(codecs.BOM_UTF8) :]
    if len(data) >= 2 and (data[0] == 0 or data[1] == 0):
        findings.append(
            _invalid("file looks UTF-16/UTF-32-encoded (NUL bytes); RFC 8259 requires UTF-8", 1, 1)
        )
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8", errors="replace")
        line, column = _line_col(good, len(good))
        findings.append(
            _invalid(f"invalid UTF-8 byte 0x{data[exc.start]:02x} at byte offset {exc.start}", line, column)
        )
        return None


def read_bytes(data: bytes) -> RawDocument:
    """Parse `data` as a UTF-8 JSON document, reporting problems as GIR100/GIR102 findings."""
    findings: list[Finding] = []
    text = _decode(data, findings)
    if text is None:
        return RawDocument(None, findings)
    if not text.strip():
        findings.append(_invalid("file is empty" if not text else "file holds only whitespace", 1, 1))
        return RawDocument(None, findings)
    duplicates_seen: list[bool] = []
    try:
        with gc_paused():
            doc = _decoder(duplicates_seen).decode(text)
    except json.JSONDecodeError as exc:
        findings.append(_invalid(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno))
        return RawDocument(None, findings)
    except _NonFiniteNumber as exc:
        match = next((m for m in _NON_FINITE.finditer(text) if m.group(1)), None)
        line, column = _line_col(text, match.start(1)) if match else (None, None)
        findings.append(
            _invalid(f"{exc} is not a JSON number (RFC 8259 allows only finite numbers)", line, column)
        )
        return RawDocument(None, findings)
    except RecursionError:
        findings.append(_invalid("nesting too deep to parse (more than about 1000 levels)", 1, 1))
        return RawDocument(None, findings)
    except ValueError as exc:  # e.g. integers with more digits than Python's int parsing limit
        findings.append(_invalid(f"invalid JSON: {str(exc).split(';')[0]}", 1, 1))
        return RawDocument(None, findings)
    if duplicates_seen:
        findings.extend(_duplicate_key_findings(doc))
    return RawDocument(doc, findings)


def _duplicate_key_findings(doc: Any, base: str = "") -> Iterator[Finding]:
    # Called only when the decoder saw a duplicate (rare), so normal files never pay for this walk.
    stack: list[tuple[Any, str]] = [(doc, base)]
    while stack:
        node, ptr = stack.pop()
        if isinstance(node, dict):
            if isinstance(node, _DuplicateKeys):
                for key, count in node.duplicates.items():
                    yield Finding(
                        "GIR102",
                        Severity.ERROR,
                        f"key {key!r} appears {count} times in one object; JSON readers disagree on which "
                        "value wins (this tool keeps the last)",
                        jp.extend(ptr, key),
                    )
            stack.extend((v, jp.extend(ptr, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, jp.extend(ptr, i)) for i, v in enumerate(node))


class StreamError(Exception):
    """The member-by-member read met something only `read_bytes` reports exactly: read the whole file."""


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _skip(text: str, position: int = 0) -> int:
    """The position of the first non-whitespace character at or after `position`."""
    match = _WHITESPACE.match(text, position)
    assert match is not None  # "*" matches the empty string
    return match.end()


class Members:
    """A JSON object document read one top-level member at a time.

    A whole IR as Python dicts takes about 4.6x its size; reading core by core, each core's raw
    JSON can be dropped once validated. Iterating gives (key, value) pairs in file order and adds
    GIR102 findings for duplicate keys inside them to `findings`. Anything else that is not plain
    JSON (a syntax error, NaN, a repeated top-level key, nesting too deep) raises StreamError.
    """

    def __init__(self, text: str, findings: list[Finding]) -> None:
        self.findings = findings
        self._text = text
        self.offsets: dict[str, tuple[int, int]] = {}
        """Each member read so far: key -> (offset of its key, of its value) in the text, for finding
        positions later without scanning the members before it (irtools.positions)."""

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        text, self._text = self._text, ""  # one pass; the text is released with the iterator
        duplicates: list[bool] = []
        scan = _decoder(duplicates).scan_once  # type: ignore[attr-defined]  # set in JSONDecoder.__init__
        position = _skip(text, _skip(text) + 1)  # past "{": Members only exists for objects
        more = not text.startswith("}", position)
        if not more:
            position += 1
        while more:
            try:
                if not text.startswith('"', position):
                    raise StreamError("expecting a key")
                key_at = position
                key, position = json.decoder.scanstring(text, position + 1)  # type: ignore[attr-defined]
                position = _skip(text, position)
                if not text.startswith(":", position):
                    raise StreamError("expecting ':'")
                seen = len(duplicates)
                value_at = _skip(text, position + 1)
                value, position = scan(text, value_at)
            except (StopIteration, ValueError, RecursionError) as exc:
                raise StreamError(str(exc)) from exc
            if key in self.offsets:
                raise StreamError(f"top-level key {key!r} repeated")
            self.offsets[key] = (key_at, value_at)
            if len(duplicates) > seen:
                self.findings.extend(_duplicate_key_findings(value, jp.join(key)))
            yield key, value
            del value
            position = _skip(text, position)
            more = text.startswith(",", position)
            if more:
                position = _skip(text, position + 1)
            elif text.startswith("}", position):
                position += 1
            else:
                raise StreamError("expecting ',' or '}'")
        if _skip(text, position) != len(text):
            raise StreamError("extra data")


def read_members(data: bytes) -> Members | None:
    """`data` as Members when it is UTF-8 text holding an object; None otherwise (use read_bytes)."""
    findings: list[Finding] = []
    text = _decode(data, findings)
    if text is None or not text.startswith("{", _skip(text)):
        return None
    return Members(text, findings)
