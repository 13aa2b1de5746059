"""Line and column of JSON pointers in a file's text: one scan, only along the pointers asked for.

Findings are located by RFC 6901 pointers; CI annotations and editors want a line. The loader does not
keep positions (that would slow every clean file down), so the file is scanned again, only when it has
findings: containers on a pointer's path are walked token by token, every other value is skipped by
the C scanner of the `json` module, and the scan stops once every pointer is placed.

Where the loader read the file member by member, the file is read again in pieces: only the members
the pointers name, and the lines counted chunk by chunk. Decoding the whole file to text (its bytes and
its text side by side, twice the file) was the peak of `irtools validate` on real 64-core files, though
their usual findings (the dialect's note, the mesh's numbering) point at the root.
"""

from __future__ import annotations

import bisect
import codecs
import dataclasses
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, BinaryIO

from irtools import pointer as jp
from irtools.findings import Finding, Severity

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_LEADING_WHITESPACE = re.compile(rb"[ \t\n\r]*")
_CHUNK = 1 << 22
"""Bytes read at a time when a file is read in pieces (`_located_in_pieces`)."""
_SKIP = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # C scanner: (text, index) -> (value, end)
_scan_key: Any = json.decoder.scanstring  # type: ignore[attr-defined]


class _Node:
    """One pointer prefix: its children by unescaped token, and where the scan found it."""

    __slots__ = ("children", "offset", "wanted")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.offset: int | None = None
        self.wanted = False


class _Done(Exception):
    """Every pointer asked for has been placed: the rest of the text need not be read."""


class _Scan:
    def __init__(self, text: str, root: _Node, wanted: int) -> None:
        self.text = text
        self.root = root
        self.left = wanted

    def skip_ws(self, position: int) -> int:
        match = _WHITESPACE.match(self.text, position)
        assert match is not None  # "*" matches the empty string
        return match.end()

    def place(self, node: _Node, offset: int) -> None:
        # A repeated key (GIR102) is placed at its last occurrence: the value JSON readers keep.
        if node.wanted and node.offset is None:
            self.left -= 1
        node.offset = offset

    def value(self, position: int, node: _Node) -> int:
        """Walk the value starting at `position` (no whitespace before it); return the index after it."""
        text = self.text
        opener = text[position : position + 1]
        if not node.children or opener not in ("{", "["):
            return int(_SKIP(text, position)[1])
        position = self.skip_ws(position + 1)
        closer = "}" if opener == "{" else "]"
        if text.startswith(closer, position):
            return position + 1
        index = 0
        while True:
            start = position
            if opener == "{":
                if not text.startswith('"', position):
                    raise ValueError("expecting a key")
                key, position = _scan_key(text, position + 1)
                position = self.skip_ws(position)
                if not text.startswith(":", position):
                    raise ValueError("expecting ':'")
                position = self.skip_ws(position + 1)
                child = node.children.get(key)
            else:
                child = node.children.get(str(index))
                index += 1
            if child is None:
                position = int(_SKIP(text, position)[1])
            else:
                # A member is placed at its key: that is the line a reader looks for.
                self.place(child, start)
                position = self.value(position, child)
            position = self.skip_ws(position)
            if text.startswith(",", position):
                position = self.skip_ws(position + 1)
            elif text.startswith(closer, position):
                if self.left == 0:
                    # Stop only once a container is closed, so that a key repeated in it is seen.
                    raise _Done
                return position + 1
            else:
                raise ValueError(f"expecting ',' or {closer!r}")


def _members(scan: _Scan, root: _Node, members: Mapping[str, tuple[int, int]]) -> None:
    """Walk only the top-level members the pointers name, from where the loader found them."""
    for key, child in root.children.items():
        found = members.get(key)
        if found is None:
            continue  # no such member: the pointer falls back to the root
        key_at, value_at = found
        scan.place(child, key_at)
        scan.value(value_at, child)  # raises _Done once every pointer is placed


def _trie(pointers: Iterable[str]) -> tuple[_Node, int]:
    root, wanted = _Node(), 0
    for pointer in pointers:
        try:
            tokens = jp.split(pointer)
        except ValueError:
            continue
        node = root
        for token in tokens:
            node = node.children.setdefault(token, _Node())
        if not node.wanted:
            node.wanted = True
            wanted += 1
    return root, wanted


def offsets(
    text: str, pointers: Iterable[str], members: Mapping[str, tuple[int, int]] | None = None
) -> dict[str, int]:
    """The character offset of each pointer's value in `text` (of its key, for an object member).

    A pointer that does not resolve gets its deepest ancestor that does (a missing key: the object
    that lacks it). A text that is not JSON gets whatever was placed before the scanner stopped.
    `members` (top-level key -> offsets of its key and value, as the loader read them) lets the scan
    start at each member a pointer names instead of reading every member before it.
    """
    pointers = list(dict.fromkeys(pointers))
    root, wanted = _trie(pointers)
    scan = _Scan(text, root, wanted)
    start = scan.skip_ws(0)
    if start < len(text):
        scan.place(root, start)
        try:
            if members:
                _members(scan, root, members)
            else:
                scan.value(start, root)
        except _Done:
            pass
        except (ValueError, StopIteration, RecursionError, IndexError):
            pass  # not JSON after all: keep what was placed
    found: dict[str, int] = {}
    for pointer in pointers:
        try:
            tokens = jp.split(pointer)
        except ValueError:
            continue
        node, best = root, root.offset
        for token in tokens:
            child = node.children.get(token)
            if child is None or child.offset is None:
                break
            node, best = child, child.offset
        if best is not None:
            found[pointer] = best
    return found


def _newlines(text: str, start: int, end: int) -> int:
    """Line breaks in text[start:end]: LF, CRLF and a lone CR each end a line, as in editors."""
    return text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)


def line_columns(text: str, offsets_: Iterable[int]) -> dict[int, tuple[int, int]]:
    """1-based (line, column) of each offset, columns in code points; one pass over the text."""
    result: dict[int, tuple[int, int]] = {}
    line, line_start, previous = 1, 0, 0
    for offset in sorted(set(offsets_)):
        breaks = _newlines(text, previous, offset)
        if breaks:
            line += breaks
            line_start = max(text.rfind("\n", previous, offset), text.rfind("\r", previous, offset)) + 1
        result[offset] = (line, offset - line_start + 1)
        previous = offset
    return result


def locate(
    text: str, pointers: Iterable[str], members: Mapping[str, tuple[int, int]] | None = None
) -> dict[str, tuple[int, int]]:
    """(line, column) of each pointer that resolves (or has an ancestor that does) in `text`."""
    placed = offsets(text, pointers, members)
    positions = line_columns(text, placed.values())
    return {pointer: positions[offset] for pointer, offset in placed.items()}


def _unlocated(findings: Sequence[Finding]) -> bool:
    # A file that is not JSON (GIR100 error) has nothing to scan; its own findings carry a position.
    return any(f.line is None for f in findings) and not any(
        f.code == "GIR100" and f.severity is Severity.ERROR for f in findings
    )


def with_positions(
    path: str,
    findings: list[Finding],
    max_bytes: int | None = None,
    members: Mapping[str, tuple[int, int]] | None = None,
) -> list[Finding]:
    """`findings` with line and column filled in from the file at `path`, where their pointers resolve.

    Findings that already have a line keep it; a file that cannot be read again, or is larger than
    `max_bytes`, leaves the findings as they are. `members`: as in `offsets`.
    """
    if not _unlocated(findings):
        return findings
    pointers = list(dict.fromkeys(f.pointer for f in findings if f.line is None))
    try:
        if max_bytes is not None and os.stat(path).st_size > max_bytes:
            return findings
        with open(path, "rb") as handle:
            positions = _located_in_pieces(handle, pointers, members) if members else None
            if positions is None:
                handle.seek(0)
                positions = _located_in(handle.read(), pointers, members)
    except (OSError, UnicodeDecodeError):
        return findings
    return _placed(findings, positions)


def with_positions_in(
    data: bytes, findings: list[Finding], members: Mapping[str, tuple[int, int]] | None = None
) -> list[Finding]:
    """`findings` with line and column filled in from `data`, the bytes of a stream (which cannot be read
    again), as `with_positions` fills them in from a file."""
    if not _unlocated(findings):
        return findings
    pointers = list(dict.fromkeys(f.pointer for f in findings if f.line is None))
    try:
        positions = _located_in(data, pointers, members)
    except UnicodeDecodeError:
        return findings
    return _placed(findings, positions)


def _located_in(
    data: bytes, pointers: list[str], members: Mapping[str, tuple[int, int]] | None
) -> dict[str, tuple[int, int]]:
    # The reader skips a UTF-8 byte order mark too: columns count from the first character after it.
    text = data.decode("utf-8-sig") if data.startswith(codecs.BOM_UTF8) else data.decode("utf-8")
    del data  # the file's bytes and text side by side were validate's peak on large files
    return locate(text, pointers, members)


def _placed(findings: list[Finding], positions: Mapping[str, tuple[int, int]]) -> list[Finding]:
    located = []
    for finding in findings:
        position = positions.get(finding.pointer) if finding.line is None else None
        if position is not None:
            finding = dataclasses.replace(finding, line=position[0], column=position[1])
        located.append(finding)
    return located


def _located_in_pieces(
    handle: BinaryIO, pointers: list[str], members: Mapping[str, tuple[int, int]]
) -> dict[str, tuple[int, int]] | None:
    """`locate` over the file open in `handle`, holding only the members the pointers name and a chunk.

    The loader's member offsets count characters; they are byte offsets only in an ASCII file, so a
    byte outside ASCII met on the way gives None: the caller reads the file whole.
    """
    by_member: dict[str, list[str]] = {}
    at_root: list[str] = []
    for pointer in pointers:
        try:
            tokens = jp.split(pointer)
        except ValueError:
            continue  # placed nowhere, as `offsets` does
        if tokens and tokens[0] in members:
            by_member.setdefault(tokens[0], []).append(pointer)
        else:
            at_root.append(pointer)  # the root, or a member the file lacks: the root is what resolves
    placed: dict[str, int] = {}
    if at_root:
        root = _first_value(handle)
        if root is not None:
            placed.update(dict.fromkeys(at_root, root))
    starts = sorted(key_at for key_at, _ in members.values())
    for key, wanted in by_member.items():
        key_at, value_at = members[key]
        following = bisect.bisect_right(starts, key_at)  # the member ends where the next one's key starts
        handle.seek(key_at)
        piece = handle.read(starts[following] - key_at if following < len(starts) else -1)
        if not piece.isascii():
            return None
        local = offsets(piece.decode("ascii"), wanted, {key: (0, value_at - key_at)})
        placed.update({pointer: key_at + offset for pointer, offset in local.items()})
    lines = _line_columns_in_chunks(handle, placed.values())
    if lines is None:
        return None
    return {pointer: lines[offset] for pointer, offset in placed.items() if offset in lines}


def _first_value(handle: BinaryIO) -> int | None:
    """The offset of the file's first byte that is not whitespace: where the root value starts (a byte
    order mark or another byte outside ASCII is refused when the lines are counted). None for a file of
    whitespace alone, whose pointers `offsets` places nowhere either."""
    handle.seek(0)
    position = 0
    while chunk := handle.read(_CHUNK):
        start = _LEADING_WHITESPACE.match(chunk)
        assert start is not None  # "*" matches the empty string
        if start.end() < len(chunk):
            return position + start.end()
        position += len(chunk)
    return None


def _line_columns_in_chunks(handle: BinaryIO, offsets_: Iterable[int]) -> dict[int, tuple[int, int]] | None:
    """`line_columns` over the file in `handle` read chunk by chunk from its start, up to the last
    offset; None if a chunk read holds a byte outside ASCII (byte offsets then count no characters)."""
    targets = sorted(set(offsets_))
    result: dict[int, tuple[int, int]] = {}
    line, line_start, chunk_start = 1, 0, 0
    handle.seek(0)
    pending = iter(targets)
    target = next(pending, None)
    while target is not None:
        chunk = handle.read(_CHUNK)
        if chunk.endswith(b"\r"):
            chunk += handle.read(1)  # a CRLF is one line break: never split it between chunks
        if not chunk:
            break  # offsets past the end (none are expected) are placed nowhere
        if not chunk.isascii():
            return None
        previous = 0
        while target is not None and target <= chunk_start + len(chunk):
            local = target - chunk_start
            line, line_start = _advanced(chunk, previous, local, chunk_start, line, line_start)
            result[target] = (line, target - line_start + 1)
            previous = local
            target = next(pending, None)
        line, line_start = _advanced(chunk, previous, len(chunk), chunk_start, line, line_start)
        chunk_start += len(chunk)
    return result


def _advanced(chunk: bytes, start: int, end: int, base: int, line: int, line_start: int) -> tuple[int, int]:
    """(line, offset where it starts) after reading chunk[start:end], the chunk starting at `base`."""
    breaks = (
        chunk.count(b"\n", start, end) + chunk.count(b"\r", start, end) - chunk.count(b"\r\n", start, end)
    )
    if not breaks:
        return line, line_start
    last = max(chunk.rfind(b"\n", start, end), chunk.rfind(b"\r", start, end))
    return line + breaks, base + last + 1
