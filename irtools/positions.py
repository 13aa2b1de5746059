"""Line and column of JSON pointers in a file's text: one scan, only along the pointers asked for.

Findings are located by RFC 6901 pointers; CI annotations and editors want a line. The loader does not
keep positions (that would slow every clean file down), so the file is scanned again, only when it has
findings: containers on a pointer's path are walked token by token, every other value is skipped by
the C scanner of the `json` module, and the scan stops once every pointer is placed.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from irtools import pointer as jp
from irtools.findings import Finding, Severity

_WHITESPACE = re.compile(r"[ \t\n\r]*")
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
    try:
        if max_bytes is not None and os.stat(path).st_size > max_bytes:
            return findings
        with open(path, "rb") as handle:
            data = handle.read()
        # The reader skips a UTF-8 byte order mark too: columns count from the first character after it.
        text = data.decode("utf-8-sig") if data.startswith(codecs.BOM_UTF8) else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return findings
    positions = locate(text, (f.pointer for f in findings if f.line is None), members)
    located = []
    for finding in findings:
        position = positions.get(finding.pointer) if finding.line is None else None
        if position is not None:
            finding = dataclasses.replace(finding, line=position[0], column=position[1])
        located.append(finding)
    return located
