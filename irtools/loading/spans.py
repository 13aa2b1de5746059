"""A file's top-level members found chunk by chunk, so the typed decoder never holds the file whole.

The file's bytes, read whole to find where each member starts and ends, were most of validate's peak on
large files (512 MB of bytes for a 512 MB file, whose Structs validate drops core by core). Here the
file is read in chunks, twice: first for the places where a core's key may start (a quote followed by a
digit or "-", checked by a regular expression: `"12":` after `,` or `{`), then a segment at a time
between them, each segment's members split exactly by msgspec (`{` + segment + `}` as a dict of raw
values), so the spans are those a whole-file split finds. A core key nested inside a member (no Gemini
file has one) leaves its segment unbalanced: msgspec rejects it, and the caller reads the file whole.

A segment between two core keys is, in every Gemini file, one core: its span is taken from the keys'
places alone (`Found.assumed`), and the segment is split only when its member is not decoded whole by
the typed decoder (irtools.loading.decoder), whose decode proves that one JSON value fills the span.
Splitting each such segment read, copied and skimmed every byte of the file once more: 0.07-0.1 s of
the 0.15 s this took on a 79 MB file. The first and last segments (the top-level numbers sit there) are
split as they are found. A segment that holds more than its core (no Gemini file has one: Gemini writes
the cores' keys first, sorted) makes the caller read the file again whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
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

_CORE_KEY = re.compile(rb'"(-1|0|[1-9][0-9]{0,8})"[ \t\n\r]*:[ \t\n\r]*')
_SEPARATOR = re.compile(rb"[{,][ \t\n\r]*\Z")
_MEMBER = re.compile(rb'[ \t\n\r]*,?[ \t\n\r]*"([^"\\]*)"[ \t\n\r]*:[ \t\n\r]*')
_SPACE = re.compile(rb"[ \t\n\r]*")
_WHITE = b" \t\n\r"
_PREFIX = INTERNAL_PREFIX.encode()
_PREFIX_START = _PREFIX[:1]

Spans = dict[str, tuple[int, int, int]]
"""key -> (offset of the key, of its value, end of its value) in the file."""

Segments = dict[str, tuple[int, int]]
"""key -> (offset of its key, of the separator after its segment): a member whose span is assumed."""

_UNKNOWN = -1
"""An offset a chunk could not tell (white space running past the bytes it read around a key)."""


@dataclass(frozen=True, slots=True)
class Found:
    """The members of a file found chunk by chunk: their spans, and which of them are assumed."""

    spans: Spans
    assumed: Segments
    """The members whose spans come from the core keys' places only (one core between two core keys):
    `split_segment` tells whether it holds just that member, when the decoder has not shown it."""


@dataclass(frozen=True, slots=True)
class _Key:
    """A place a core's key starts, and what the chunk around it tells."""

    separator: int
    """Offset of the comma or brace before the key."""
    key: int
    """Offset of the key's opening quote."""
    name: str
    value: int
    """Offset of the member's value (after the colon and white space), or _UNKNOWN."""
    before: int
    """Offset just past the last byte before the separator that is not white space, or _UNKNOWN."""


Reader = Callable[[int, int], bytes]
"""The file's bytes from one offset to another."""


class Unsplit(Exception):
    """The file cannot be split here (not ASCII, a backslash, the decoder's internal prefix, not one JSON
    object, a repeated top-level key, a core key nested in a member): the caller reads it whole."""


def member_spans(read: Reader, size: int) -> Found:
    """Every top-level member of the file `read` gives (`read(start, end)`: its bytes), in file order.
    Raises Unsplit where a whole-file split (irtools.loading.decoder.split) would return None, and where
    this one cannot tell; an assumed member (`Found.assumed`) may still show it (`split_segment`)."""
    # The document's braces, looked for in its first and last bytes only (the chunks are read once, after).
    head = read(0, min(size, _EDGE))
    start = _SPACE.match(head).end()  # type: ignore[union-attr]  # "*" matches the empty string
    if not head.startswith(b"{", start):
        raise Unsplit("not a JSON object, or more white space before it than looked at")
    tail = read(max(0, size - _EDGE), size).rstrip(_WHITE)
    if not tail.endswith(b"}"):
        raise Unsplit("not a JSON object, or more white space after it than looked at")
    close = max(0, size - _EDGE) + len(tail) - 1
    keys, braces = _core_keys(read, size)
    # Between two segments only a comma: a brace there (not the document's own) would be dropped unread.
    if braces - {start}:
        raise Unsplit("a core key after a brace inside a member")
    spans: Spans = {}
    assumed: Segments = {}
    if keys and keys[0].separator > start + 1:
        _segment(read(start + 1, keys[0].separator), start + 1, spans)
    for key, after in pairwise(keys):
        if key.value == _UNKNOWN or after.before == _UNKNOWN or after.before <= key.value:
            _segment(read(key.key, after.separator), key.key, spans)
            continue
        if key.name in spans:
            raise Unsplit("a top-level key repeated")
        spans[key.name] = (key.key, key.value, after.before)
        assumed[key.name] = (key.key, after.separator)
    if keys:
        _segment(read(keys[-1].key, close), keys[-1].key, spans)
    elif close > start + 1:
        _segment(read(start + 1, close), start + 1, spans)
    # A key after a brace inside a member leaves a segment unbalanced, and one after a comma ends one
    # that must hold members: `{ , "0": []}` is no JSON, though each segment decodes.
    first_key = keys[0].key if keys else None
    if (
        first_key is not None
        and keys[0].separator != start
        and all(at >= first_key for at, _, _ in spans.values())
    ):
        raise Unsplit("a comma before the first member")
    return Found(spans, assumed)


def split_segment(read: Reader, key: str, segment: tuple[int, int], span: tuple[int, int, int]) -> None:
    """Raise Unsplit unless the segment of an assumed member (`Found.assumed`) holds that member only,
    with the span assumed for it."""
    found: Spans = {}
    begin, end = segment
    _segment(read(begin, end), begin, found)
    if found != {key: span}:
        raise Unsplit("a segment between two core keys holds more than one member")


def _core_keys(read: Reader, size: int) -> tuple[list[_Key], set[int]]:
    """Every place a core's key may start, in file order, and the offsets of the separators before them
    that are a brace, not a comma."""
    found: dict[int, _Key] = {}
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
            key = _CORE_KEY.match(text, at) if separator is not None else None
            if separator is None or key is None:
                continue
            # The value starts where the white space after the colon ends, unless the chunk ends first;
            # the bytes before the separator are the previous value's end, unless white space fills them.
            value = base + key.end() if key.end() < len(text) else _UNKNOWN
            before = separator.start()
            while before > 0 and text[before - 1] in _WHITE:
                before -= 1
            found[base + at] = _Key(
                base + separator.start(),
                base + at,
                key.group(1).decode(),
                value,
                base + before if before > 0 or base == 0 else _UNKNOWN,
            )
            if text.startswith(b"{", separator.start()):
                braces.add(base + separator.start())
        start += CHUNK
    return [found[key] for key in sorted(found)], braces


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
