"""The typed decoder: each top-level member decoded by msgspec straight from the bytes into Structs.

What the models would say stays theirs: a member msgspec rejects (a schema error, an unknown key, a
duplicate key, a looser union's mix) is parsed as JSON and handed to the models
(irtools.loading.load) exactly as before, so its findings (GIR100-GIR104, pointers, lines and
columns) are today's. A file the decoder cannot vouch for as a whole (not ASCII, a backslash that
would upset the key count, invalid JSON, a repeated top-level key) is left to the models entirely
(`split` returns None). Extension keys (GIR103 info) and keys Gemini leaves out (GIR104) are counted on
the Structs by the dialect's key scan (`KeyScan.decoded_core`).

GIR102 without building the objects: msgspec keeps the last of repeated keys silently, so each
member's colons are counted twice, in its bytes and in its Structs encoded back. Outside strings a
colon follows each key; inside, the strings are the same on both sides when the file has no escape
(no backslash). The encoder leaves out a field holding the model's default (or UNSET, for a key left
out), so the Structs give back at most the keys the file wrote, once per name. Equal counts mean no
key was repeated and none was written with its default value; anything else (a repeated key adds a
colon to the bytes only) sends the member to the models, which find the repeated key exactly.
"""

from __future__ import annotations

import json
import os
import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter
from typing import Any, BinaryIO

import msgspec

from irtools import pointer as jp
from irtools import reference
from irtools.dialects import Dialect, dialect_of
from irtools.dialects.base import PartModels
from irtools.dialects.keys import KeyScan
from irtools.findings import Finding
from irtools.loading.dropping import DROPPED_FIELDS
from irtools.loading.fast_types import LOOSE, decoder_for, skimmed_nullable, skimming_decoder
from irtools.loading.reader import StreamError, _decoder, _duplicate_key_findings
from irtools.loading.sharing import share_values
from irtools.loading.spans import Segments, Unsplit, member_spans, split_segment, vouchable, walk_members
from irtools.loading.written_extensions import written_extension_keys
from irtools.model.base import CORE_KEY

SWITCH = "IRTOOLS_DECODER"
"""Environment variable: `models` turns the typed decoder off (every member read by the models)."""

_END = re.compile(rb"[ \t\n\r]*}[ \t\n\r]*\Z")
_NESTED_IDS = re.compile(rb'"transfer_id"[ \t\n\r]*:[ \t\n\r]*\[[^\]]*\[')
"""A list of transfer ids holding a list (`[[t]]`, or a mix): the loose union must be checked."""
_ENCODER = msgspec.json.Encoder()
_SKIMMED = frozenset(DROPPED_FIELDS)
_NULL = msgspec.Raw(b"null")
_COLON = b":"


def enabled() -> bool:
    """Whether loading tries the typed decoder first: on unless IRTOOLS_DECODER=models or under the
    reference core (IRTOOLS_CORE=reference), whose models are the oracle tests/equivalence compares with."""
    return os.environ.get(SWITCH, "msgspec") != "models" and not reference.active()


@dataclass(slots=True)
class Decoded:
    """A member decoded into Structs (irtools.loading.fast_types): what the loader takes as validated."""

    value: Any
    extension_keys: tuple[str, ...] = ()
    """The extension keys (GIR103 info) the member wrote (irtools.loading.written_extensions): the key scan
    notes where they are."""
    checked_elsewhere: bool = False
    """Another process checks this core (`Split.checked_elsewhere`): the dialect need not complete its
    snapshots (`finish_core`), which only that process's checks read."""


@dataclass(frozen=True, slots=True)
class Reread:
    """An open regular file read again member by member, as long as it is as it was when read whole (a
    file rewritten since raises StreamError: the models read it whole again)."""

    handle: BinaryIO
    stamp: tuple[int, int]
    """(size, modification time in ns) of the file, taken before it was read whole."""

    def read(self, start: int, end: int) -> bytes:
        """The bytes from `start` to `end`, read from the file as it was."""
        status = os.fstat(self.handle.fileno())
        if (status.st_size, status.st_mtime_ns) != self.stamp:
            raise StreamError("the file changed while it was read")
        if hasattr(os, "pread"):  # at its offset, not the handle's: a forked child shares the open file
            return os.pread(self.handle.fileno(), end - start, start)
        self.handle.seek(start)  # Windows: no pread, and no fork either
        return self.handle.read(end - start)


@dataclass(slots=True)
class Split:
    """A file's top-level members as byte ranges, each decoded when iterated."""

    data: bytes | None
    """The file's bytes; None once `read_again` hands the members over to the file."""
    spans: dict[str, tuple[int, int, int]]
    """key -> (offset of the key, of its value, end of its value)."""
    findings: list[Finding] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)
    """Members read again by the models, and why (for tests and benchmarks)."""
    models_read: set[str] = field(default_factory=set)
    """The keys of those members."""
    assumed: Segments = field(default_factory=dict)
    """Members whose spans the chunks assumed (irtools.loading.spans.Found), until shown: decoded whole, or
    their segment split."""
    unsplit: bool = False
    """An assumed member's segment held more than that member: the file is to be split whole."""
    claim: Callable[[str], bool] | None = None
    """Asked before each core is decoded, when two processes share the file's cores (irtools.forked_cores):
    False when the other process checks it. Such a core is then skimmed (`checked_elsewhere`), or with
    `skip_refused` left out."""
    skip_refused: bool = False
    checked_elsewhere: set[str] = field(default_factory=set)
    """Cores another process decodes and checks: here only skimmed (`_skimmed`), their keys not scanned;
    the file is read again if they fail there."""
    scanned_elsewhere: Callable[[KeyScan], None] | None = None
    """Called with the file's key scan once its cores are read (irtools.loading.load): adds the scan of the
    cores checked elsewhere."""
    _file: Reread | None = None

    def read_again(self, file: Reread) -> None:
        """Drop the bytes: each member is read again from the open regular file they were read from as it
        is decoded, so the file's bytes and its Structs are never held whole side by side (on real 64-core
        files, the bytes were a third of loading's peak)."""
        self._file = file
        self.data = None

    def _member(self, key: str) -> tuple[bytes, int, int]:
        """The bytes holding the member's value, and where in them it starts and ends."""
        _, start, end = self.spans[key]
        if self.data is not None:
            return self.data, start, end
        return self._read(start, end), 0, end - start

    def _read(self, start: int, end: int) -> bytes:
        if self.data is not None:
            return self.data[start:end]
        assert self._file is not None
        return self._file.read(start, end)

    def split_assumed(self, key: str) -> None:
        """Show that an assumed member's segment holds it only (its span is then the whole split's), or
        raise StreamError: the chunks cannot tell where it ends, and the file is split whole."""
        segment = self.assumed.pop(key, None)
        if segment is None:
            return
        try:
            split_segment(self._read, key, segment, self.spans[key])
        except Unsplit as exc:
            self.unsplit = True
            raise StreamError(str(exc)) from exc

    @property
    def offsets(self) -> dict[str, tuple[int, int]]:
        """key -> (offset of the key, of its value), as LoadedIR.member_offsets holds them."""
        return {key: (k, v) for key, (k, v, _) in self.spans.items()}

    def parsed(self, key: str) -> Any:
        """The member as JSON values, its GIR102 findings added (the models' way)."""
        self.split_assumed(key)
        data, start, end = self._member(key)
        duplicates: list[bool] = []
        try:
            value = _decoder(duplicates).decode(data[start:end].decode("ascii"))
        except (ValueError, RecursionError) as exc:  # JSON msgspec took and json does not: read it whole
            raise StreamError(str(exc)) from exc
        if duplicates:
            self.findings.extend(_duplicate_key_findings(value, jp.join(key)))
        return value

    def dialect(self) -> Dialect:
        """The file's dialect, judged as the models' loader judges it, parsing only the members that
        decide (`dialect_of`: the first cores, not the megabytes of the DRAM section)."""
        return dialect_of(self.spans.keys(), self._peek)

    def _peek(self, key: str) -> Any:
        data, start, end = self._member(key)
        try:
            value = json.loads(data[start:end])
        except (ValueError, RecursionError) as exc:  # JSON msgspec took and json does not: read it whole
            self.split_assumed(key)  # unless the chunks mistook where the member ends: split it whole
            raise StreamError(str(exc)) from exc
        self.assumed.pop(key, None)  # one JSON value fills the span (json refuses anything after it)
        return value

    def members(
        self, parts: PartModels, cores_last: bool = False, share_cores: bool = True
    ) -> Iterator[tuple[str, Any]]:
        """(key, value) in file order: a `Decoded` for a member the Structs hold exactly, else parsed JSON.
        With `cores_last`, the members that are no core (the DRAM section, the top-level numbers) come
        first, then the cores in file order: what a core is checked with is read before it. Without
        `share_cores`, a core's equal values are not made one (`share_values`): for a reader that lets
        most of each core go once it is read, sharing costs time and saves nothing."""
        keys = list(self.spans)
        if cores_last:
            keys.sort(key=lambda key: key != "-1" and CORE_KEY.match(key) is not None)
        for key in keys:
            core = CORE_KEY.match(key) is not None
            if core and self.claim is not None and key not in self.checked_elsewhere and not self.claim(key):
                if self.skip_refused:
                    continue
                self.checked_elsewhere.add(key)
            if key == "-1" or core:
                typed = self._typed(key, parts, share=share_cores or key == "-1")
                if typed is not None:
                    yield key, typed
                    continue
            yield key, self.parsed(key)

    def _typed(self, key: str, parts: PartModels, share: bool) -> Decoded | None:
        if key in self.checked_elsewhere:
            skimmed = self._skimmed(key, parts.workload)
            if skimmed is not None:
                return skimmed
        data, start, end = self._member(key)
        annotation = parts.dram_section if key == "-1" else list[parts.workload]  # type: ignore[name-defined]
        member = memoryview(data)[start:end]
        try:
            value = decoder_for(annotation).decode(member)
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError) as exc:
            self.split_assumed(key)
            self._fall_back(key, str(exc))
            return None
        # One JSON value fills the span (msgspec refuses anything after it): the member is shown.
        self.assumed.pop(key, None)
        if not self._exact(key, data, start, end, value):
            return None
        if share:
            share_values(value)
        return Decoded(value, written_extension_keys(annotation, value))

    def _skimmed(self, key: str, workload: type) -> Decoded | None:
        """A core another process checks, its workloads' fields that the whole-file steps do not read
        (`DROPPED_FIELDS`) kept as the JSON they are, unchecked (that process checks them); None when the
        dialect's workloads cannot be skimmed or the rest breaks the schema (then read it as any core)."""
        decoder = skimming_decoder(workload, _SKIMMED)
        if decoder is None:
            return None
        data, start, end = self._member(key)
        try:
            value = decoder.decode(memoryview(data)[start:end])
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            return None
        for name in skimmed_nullable(workload, _SKIMMED):
            written_null = [
                w for w, held in zip(value, map(attrgetter(name), value), strict=True) if held == _NULL
            ]
            deque(map(setattr, written_null, repeat(name), repeat(None)), maxlen=0)
        self.assumed.pop(key, None)  # one JSON value fills the span (msgspec refuses anything after it)
        return Decoded(value, (), checked_elsewhere=True)

    def _exact(self, key: str, data: bytes, start: int, end: int, value: Any) -> bool:
        """Whether the Structs hold the member exactly: no key repeated or written with its default value,
        and (`LOOSE`) no list of transfer ids mixing `[t]` and `[[t]]`; else the reason is noted."""
        if data.count(_COLON, start, end) != _ENCODER.encode(value).count(_COLON):
            self._fall_back(key, "a repeated key, or one written with its default value")
            return False
        if LOOSE and _NESTED_IDS.search(data, start, end) and not _one_form(value, key == "-1"):
            self._fall_back(key, "transfer ids mixing [t] and [[t]]")
            return False
        return True

    def _fall_back(self, key: str, why: str) -> None:
        self.fallbacks.append(f"{key}: {why}")
        self.models_read.add(key)


def _one_form(value: Any, dram: bool) -> bool:
    """Whether every buffer entry's transfer ids are all `t` or all `[t]` (the loose union's rest)."""
    if dram:
        return True
    for workload in value:
        for entry in getattr(workload, "buffer", ()):
            ids = entry.transfer_id_as_written
            if ids and len({type(t) for t in ids}) > 1:
                return False
    return True


def split(data: bytes) -> Split | None:
    """`data` as members when the decoder can vouch for the whole file; None: the models read it."""
    if not vouchable(data):
        return None
    try:
        top = msgspec.json.decode(data, type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # the models' reader says exactly what is wrong
    spans: dict[str, tuple[int, int, int]] = {}
    end = walk_members(data, data.index(b"{") + 1, top, 0, spans)
    if end is None or not _END.match(data, end):
        return None
    return Split(data, spans)


def scan(file: Reread, size: int) -> Split | None:
    """The members of the regular file `file` (of `size` bytes), found a chunk at a time and read from the
    file as each is decoded, so its bytes are never held whole (irtools.loading.spans); None where `split`
    would say None, or the chunks cannot tell (then read it whole)."""
    try:
        found = member_spans(file.read, size)
    except (Unsplit, StreamError):  # StreamError: the file changed while it was read
        return None
    split = Split(None, found.spans, assumed=dict(found.assumed))
    split.read_again(file)
    return split
