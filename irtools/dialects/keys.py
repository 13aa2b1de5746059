"""GIR103 from the raw file: keys the models do not know, and extension keys, per object kind (the shared
scan; each dialect's scan names its models and walks its workloads: documented/keys.py, raw/keys.py).

The models drop unknown keys (the records are slotted dataclasses), so the keys are counted on the
raw JSON, one top-level part at a time, while that part is still in memory.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any, ClassVar

from irtools import pointer as jp
from irtools import reference
from irtools.findings import Finding, Severity
from irtools.model.base import CORE_KEY, CORES_FIELD, EXTENSION, is_extension

WasWritten = Callable[[Any, str], bool]
"""Whether a decoded object wrote an optional key (the decoder's `fast_types.was_written`): passed in by
the loader, so dialects/ need not import loading/, which imports it."""

# Per (kind, key): [count, first pointer, its extension note or None for an unknown key]. One table per
# top-level part, merged in the order of the models (top level, DRAM, cores) whatever the order of the keys in the file.
_Seen = dict[tuple[str, str], list[Any]]


@functools.cache
def known_keys(model: type) -> tuple[frozenset[str], frozenset[str]]:
    """(every key the model reads, the extension keys among them)."""
    fields = {  # init=False fields are filled by irtools after loading, never read from the file
        name: info
        for name, info in model.__pydantic_fields__.items()  # type: ignore[attr-defined]
        if info.init is not False
    }
    known = frozenset((info.alias or name) for name, info in fields.items()) - {CORES_FIELD}
    extension = frozenset((info.alias or name) for name, info in fields.items() if is_extension(info))
    return known, extension


def extension_note(model: type, key: str) -> str:
    """The note an extension field carries in `model` (why real files write the key)."""
    for name, info in model.__pydantic_fields__.items():  # type: ignore[attr-defined]
        if (info.alias or name) == key and isinstance(info.json_schema_extra, dict):
            return str(info.json_schema_extra[EXTENSION])
    raise KeyError(f"{model.__name__} has no extension key {key!r}")


def _plain(model: type, entries: list[Any]) -> bool:
    """Whether every entry is an object whose keys `model` knows and none of which it notes as a
    extension key: then no entry yields a GIR103, and one union of their keys (in C) proves it instead
    of a call per entry. Off under the reference core (irtools.reference), which looks at each one."""
    if reference.active() or not set(map(type, entries)) <= {dict}:
        return False
    keys: set[str] = set().union(*entries)
    known, extension = known_keys(model)
    return known.issuperset(keys) and keys.isdisjoint(extension)


class KeyScan:
    """Counts unknown and extension keys; `findings()` gives one GIR103 per (object kind, key).

    Entries whose file pointer is in `skipped` (left out for schema errors) are not looked into,
    as the semantic checks do not look at them either.
    """

    TOP: ClassVar[type]
    DRAM_SECTION: ClassVar[type]
    DRAM_SIDES: ClassVar[Mapping[str, type]]
    DRAM_DESTINATIONS: ClassVar[Mapping[str, type]]
    """The models of the dialect's top level and DRAM section: each dialect's scan names its own."""

    def __init__(self) -> None:
        self._top: _Seen = {}
        self._dram: _Seen = {}
        self._cores: dict[str, _Seen] = {}
        """Core key -> its table, in the order the cores are scanned."""
        self._skipped: Collection[str] = ()

    def add_cores(self, other: KeyScan, order: Mapping[str, int]) -> None:
        """Add the cores `other` scanned (another process's share of this file's cores:
        irtools.forked_cores), each in its place in the file (`order`: core key -> place), as if this scan
        had met them all in file order."""
        merged = [*self._cores.items(), *other._cores.items()]
        self._cores = dict(sorted(merged, key=lambda key_seen: order[key_seen[0]]))

    def top(self, doc: dict[str, Any]) -> None:
        """The top-level keys; pass the DRAM section to `dram` and each core to `core`."""
        known, _ = known_keys(self.TOP)
        for key in doc:
            if key not in known and not CORE_KEY.match(key):
                note_key(self._top, self.TOP.__name__, key, "", (), None)

    def dram(self, section: Any, skipped: Collection[str] = ()) -> None:
        """Record the DRAM section's keys that its models do not know (`skipped`: entries left out for
        schema errors)."""
        self._skipped = set(skipped)
        if not isinstance(section, dict):
            return
        seen = self._dram
        self._record(seen, self.DRAM_SECTION, section, "/-1", ())
        for side, model in self.DRAM_SIDES.items():
            entries = section.get(side)
            if not isinstance(entries, list):
                continue
            base = "/-1/" + side
            for i, entry in self._entries(entries, base):
                self._record(seen, model, entry, base, (i,))
                self._typed_list(
                    seen, self.DRAM_DESTINATIONS, entry.get("destination"), base, (i, "destination")
                )

    def core(self, key: str, workloads: Any, skipped: Collection[str] = ()) -> None:
        """Record one core's workload, buffer and tensor keys that the models do not know."""
        self._skipped = set(skipped)
        if not isinstance(workloads, list):
            return
        seen: _Seen = {}
        self._cores[key] = seen
        if not self._skipped and self._plain_core(workloads):
            self._plain_workloads(key, workloads)
            return
        for w, workload in self._entries(workloads, jp.join(key)):
            self._workload(seen, workload, jp.join(key, w))

    def decoded_core(
        self,
        key: str,
        workloads: list[Any],
        extension_keys: Collection[str],
        was_written: WasWritten,
    ) -> None:
        """A core the typed decoder read (irtools.loading.decoder): it holds no unknown key; the extension
        keys its bytes name (`extension_keys`) are noted as `core` notes them, asking the decoder's
        `was_written` which objects wrote them, then what `_plain_workloads` counts."""
        self._skipped = ()
        seen: _Seen = {}
        self._cores[key] = seen
        if extension_keys:
            self._decoded_extension_keys(seen, key, workloads, extension_keys, was_written)
        self._decoded_workloads(key, workloads)

    def _decoded_extension_keys(
        self, seen: _Seen, key: str, workloads: list[Any], names: Collection[str], was_written: WasWritten
    ) -> None:
        """The extension keys `names` of a decoded core, noted as `_workload` notes them: a dialect whose
        models have extension keys says where they are."""
        raise NotImplementedError(
            f"{type(self).__name__} knows no extension keys, yet {sorted(names)} were met"
        )

    def _decoded_workloads(self, key: str, workloads: list[Any]) -> None:
        """`_plain_workloads` for a decoded core: nothing here."""

    def _plain_core(self, workloads: list[Any]) -> bool:
        """Whether no object of a schema-valid core can yield a GIR103: each kind's objects are
        screened together (`_plain`), a few unions for the whole core instead of a call per object."""
        try:
            return all(_plain(model, objects) for model, objects in self._core_parts(workloads))
        except (AttributeError, KeyError, TypeError):
            return False  # a shape the screen did not expect: look at each object

    def _core_parts(self, wls: list[Any]) -> Iterator[tuple[type, list[Any]]]:
        """(model, objects) of every kind of object in a schema-valid core of this dialect."""
        raise NotImplementedError

    def _workload(self, seen: _Seen, wl: dict[str, Any], base: str) -> None:
        """Record one workload's keys, and those of every object it holds, that its models do not know."""
        raise NotImplementedError

    def _plain_workloads(self, key: str, workloads: list[Any]) -> None:
        """What a core with no unknown or extension key still needs counted per workload: nothing here."""

    def findings(self) -> Iterator[Finding]:
        """GIR103 findings: one per unknown or extension key and kind of entry, with its count and first
        pointer."""
        merged: _Seen = {}
        for seen in (self._top, self._dram, *self._cores.values()):
            for kind_key, (count, pointer, note) in seen.items():
                entry = merged.get(kind_key)
                if entry is None:
                    merged[kind_key] = [count, pointer, note]
                else:
                    entry[0] += count
        for (kind, key), (count, pointer, note) in merged.items():
            if not isinstance(pointer, str):
                pointer = jp.extend(pointer[0], *pointer[1], key)
            times = f" ({count} occurrences)" if count > 1 else ""
            if note is not None:
                yield Finding(
                    "GIR103", Severity.INFO, f"extension key {key!r} in {kind}{times}: {note}", pointer
                )
            else:
                yield Finding(
                    "GIR103", Severity.WARNING, f"unknown key {key!r} in {kind}{times}; not checked", pointer
                )

    def _list(
        self,
        seen: _Seen,
        model: type,
        entries: list[Any],
        base: str,
        tokens: tuple[Any, ...],
        nested: tuple[str, dict[str, type]] | None = None,
    ) -> None:
        """The entries of one list of `model` objects, and of each entry's `nested` (key, typed kinds) list.

        Most lists hold only known keys: a screen over the whole list skips the call per entry.
        Otherwise each entry is recorded, then its nested list, in file order (the order of the findings).
        """
        if (
            not self._skipped
            and _plain(model, entries)
            and (nested is None or _nested_plain(nested, entries))
        ):
            return
        for i, entry in self._entries(entries, jp.extend(base, *tokens)):
            self._record(seen, model, entry, base, (*tokens, i))
            if nested is not None:
                key, kinds = nested
                self._typed_list(seen, kinds, entry.get(key), base, (*tokens, i, key))

    def _entries(self, entries: list[Any], base: str) -> Iterator[tuple[int, dict[str, Any]]]:
        """(position, entry) for the object entries of a list that were not skipped."""
        skipped = self._skipped
        for i, entry in enumerate(entries):
            if isinstance(entry, dict) and not (skipped and f"{base}/{i}" in skipped):
                yield i, entry

    def _typed_list(
        self, seen: _Seen, kinds: Mapping[str, type], entries: Any, base: str, tokens: tuple[Any, ...]
    ) -> None:
        """Sources or destinations: the model is chosen by each entry's "type"."""
        if not isinstance(entries, list):
            return
        for j, entry in enumerate(entries):
            if isinstance(entry, dict):
                kind = entry.get("type")
                model = kinds.get(kind) if isinstance(kind, str) else None
                if model is not None:
                    self._record(seen, model, entry, base, (*tokens, j))

    @staticmethod
    def _record(seen: _Seen, model: type, raw: dict[str, Any], base: str, tokens: tuple[Any, ...]) -> None:
        known, extensions = known_keys(model)
        if not known.issuperset(raw):
            for key in raw:
                if key not in known:
                    note_key(seen, model.__name__, key, base, tokens, None)
        for key in extensions:
            if key in raw:
                note_key(seen, model.__name__, key, base, tokens, extension_note(model, key))


def _typed_plain(kinds: Mapping[str, type], objects: list[Any]) -> bool:
    """`_plain` for objects whose model is chosen by their "type" (sources, destinations), kind by kind."""
    if not set(map(type, objects)) <= {dict}:
        return False
    return all(_plain(model, [o for o in objects if o.get("type") == kind]) for kind, model in kinds.items())


def _nested_plain(nested: tuple[str, dict[str, type]], entries: list[dict[str, Any]]) -> bool:
    """`_plain` for the nested typed lists (sources, destinations) of a list's entries, all at once."""
    key, kinds = nested
    inner = [e.get(key) for e in entries]
    if not set(map(type, inner)) <= {list, type(None)}:
        return False
    return _typed_plain(kinds, [item for items in inner if items for item in items])


def note_key(seen: _Seen, kind: str, key: str, base: str, tokens: tuple[Any, ...], note: str | None) -> None:
    """Count one unknown (`note` None) or extension key of a `kind` object at `base` + `tokens`."""
    # The pointer is assembled from (base, tokens) only for the finding, once per (kind, key).
    entry = seen.get((kind, key))
    if entry is None:
        seen[(kind, key)] = [1, (base, tokens), note]
    else:
        entry[0] += 1
