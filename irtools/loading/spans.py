"""A file's top-level members found chunk by chunk, so the typed decoder never holds the file whole.

The file's bytes, read whole to find where each member starts and ends, were most of validate's peak on
large files (512 MB of bytes for a 512 MB file, whose Structs validate drops core by core). Here the
file is read in chunks, twice: first for the places where a core's key may start (a quote followed by a
digit or "-", checked by a regular expression: `"12":` after `,` or `{`), then a segment at a time
between them, each segment's members split exactly by msgspec (`{` + segment + `}` as a dict of raw
values), so the spans are those a whole-file split finds. A core key nested inside a member (no Gemini
file has one) leaves its segment unbalanced: msgspec rejects it, and the caller reads the file whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

import msgspec
import numpy as np

from irtools.loading.fast_types import INTERNAL_PREFIX

CHUNK = 1 << 22
"""Bytes read at a time while looking for core keys."""

_OVERLAP = 256
"""Bytes of a chunk read again with the next: a core key, and the separator before it, cut by a chunk's
end is found whole there."""

_EDGE = 4096
"""Bytes read at each end of the file for the document's braces (white space beyond them: read whole)."""

_CORE_KEY = re.compile(rb'"(?:-1|0|[1-9][0-9]{0,8})"[ \t\n\r]*:')
_SEPARATOR = re.compile(rb"[{,][ \t\n\r]*\Z")
_MEMBER = re.compile(rb'[ \t\n\r]*,?[ \t\n\r]*"([^"\\]*)"[ \t\n\r]*:[ \t\n\r]*')
_SPACE = re.compile(rb"[ \t\n\r]*")
_PREFIX = INTERNAL_PREFIX.encode()
_PREFIX_START = _PREFIX[:1]

Spans = dict[str, tuple[int, int, int]]
"""key -> (offset of the key, of its value, end of its value) in the file."""

Reader = Callable[[int, int], bytes]
"""The file's bytes from one offset to another."""


class Unsplit(Exception):
    """The file cannot be split here (not ASCII, a backslash, the decoder's internal prefix, not one JSON
    object, a repeated top-level key, a core key nested in a member): the caller reads it whole."""


def member_spans(read: Reader, size: int) -> Spans:
    """Every top-level member of the file `read` gives (`read(start, end)`: its bytes), in file order.
    Raises Unsplit where a whole-file split (irtools.loading.decoder.split) would return None, and where
    this one cannot tell."""
    # The document's braces, looked for in its first and last bytes only (the chunks are read once, after).
    head = read(0, min(size, _EDGE))
    start = _SPACE.match(head).end()  # type: ignore[union-attr]  # "*" matches the empty string
    if not head.startswith(b"{", start):
        raise Unsplit("not a JSON object, or more white space before it than looked at")
    tail = read(max(0, size - _EDGE), size).rstrip(b" \t\n\r")
    if not tail.endswith(b"}"):
        raise Unsplit("not a JSON object, or more white space after it than looked at")
    close = max(0, size - _EDGE) + len(tail) - 1
    keys, braces = _core_keys(read, size)
    # Between two segments only a comma: a brace there (not the document's own) would be dropped unread.
    if braces - {start}:
        raise Unsplit("a core key after a brace inside a member")
    bounds = [(start, start + 1), *keys, (close, close)]
    spans: Spans = {}
    for (_, begin), (end, _) in pairwise(bounds):
        if end > begin:
            _segment(read(begin, end), begin, spans)
    # A key after a brace inside a member leaves a segment unbalanced, and one after a comma ends one
    # that must hold members: `{ , "0": []}` is no JSON, though each segment decodes.
    first_key = keys[0][1] if keys else None
    if first_key is not None and keys[0][0] != start and all(at >= first_key for at, _, _ in spans.values()):
        raise Unsplit("a comma before the first member")
    return spans


def _core_keys(read: Reader, size: int) -> tuple[list[tuple[int, int]], set[int]]:
    """(offset of the separator before it, offset of the key) of every place a core's key may start, and
    the offsets of those separators that are a brace, not a comma."""
    found: dict[int, int] = {}
    braces: set[int] = set()
    start = 0
    while start < size:
        base = max(0, start - _OVERLAP)
        text = read(base, min(size, start + CHUNK))
        if not vouchable(text):
            raise Unsplit("not ASCII, a backslash, or the decoder's internal prefix")
        codes = np.frombuffer(text, dtype=np.uint8)
        # A quote followed by "-" or a digit: one pass of byte comparisons (indexing the quotes first, a
        # twentieth of the bytes, took twice as long). After "-" (45) come "." and "/", then the digits.
        after = codes[1:] - np.uint8(ord("-"))
        starts = (codes[:-1] == ord('"')) & (after <= ord("9") - ord("-")) & ((after == 0) | (after >= 3))
        for at in np.flatnonzero(starts).tolist():
            separator = _SEPARATOR.search(text, max(0, at - _OVERLAP), at)
            if separator is not None and _CORE_KEY.match(text, at):
                found[base + at] = base + separator.start()
                if text.startswith(b"{", separator.start()):
                    braces.add(base + separator.start())
        start += CHUNK
    return [(found[key], key) for key in sorted(found)], braces


def _segment(data: bytes, offset: int, spans: Spans) -> None:
    """The members of `data` (members of the file's object, separated by commas, `offset` into the file)
    added to `spans`, as msgspec splits them."""
    try:
        members = msgspec.json.decode(b"{" + data + b"}", type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        raise Unsplit(str(exc)) from exc
    position = walk_members(data, 0, members, offset, spans)
    if position is None:
        raise Unsplit("a top-level key repeated")
    if _SPACE.match(data, position).end() != len(data):  # type: ignore[union-attr]  # "*" matches ""
        raise Unsplit("a top-level key repeated")  # msgspec's dict kept one of them: members are left over


def vouchable(text: bytes) -> bool:
    """Whether the typed decoder's split can vouch for these bytes: ASCII, no backslash (an escaped key
    or quote), not the decoder's internal prefix."""
    # The prefix's first byte ("$") is rare in an IR: found absent far faster than the whole prefix.
    return text.isascii() and b"\\" not in text and (_PREFIX_START not in text or _PREFIX not in text)


def walk_members(
    data: bytes, position: int, members: dict[str, msgspec.Raw], offset: int, spans: Spans
) -> int | None:
    """`members` (msgspec's split of the object members in `data` from `position`) walked in the bytes,
    each added to `spans` (`offset`: where `data` starts in the file); where the last one ends, or None
    when a key is repeated (msgspec's dict holds it once, at its first place, or another segment had it)."""
    for key, raw in members.items():
        match = _MEMBER.match(data, position)
        if match is None or match.group(1).decode() != key or key in spans:
            return None
        value_at = match.end()
        position = value_at + len(raw)
        spans[key] = (offset + match.start(1) - 1, offset + value_at, offset + position)
    return position
