"""Read a file, parse it, and validate it against the models, keeping every well-formed part."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from pydantic import TypeAdapter, ValidationError

from irtools import pointer as jp
from irtools import reference
from irtools.dialects import DOCUMENTED, Dialect, sniff
from irtools.dialects.base import PartModels
from irtools.dialects.keys import KeyScan
from irtools.findings import Finding, Severity
from irtools.limits import size_problem
from irtools.loading import decoder
from irtools.loading.fast_types import is_model, model_of, was_written
from irtools.loading.reader import StreamError, gc_paused, read_bytes, read_members
from irtools.loading.schema_errors import SchemaErrors
from irtools.model.base import CORE_KEY, CORES_FIELD, INT64_MAX, sharing_values
from irtools.model.view import IRView, PartialIR


@dataclass(slots=True)
class LoadedIR:
    """One file after loading: the model (None if unusable), load findings, and skipped parts."""

    path: str
    ir: IRView | None
    findings: list[Finding] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Pointers of entries left out of `ir` because they break the schema."""
    unchecked_transfer_ids: set[int] = field(default_factory=set)
    """Transfer ids produced by entries left out of `ir`: not dangling, merely unchecked."""
    unchecked_workloads: set[tuple[int, int]] = field(default_factory=set)
    """(core_id, workload_id) of workloads left out of `ir`."""
    kept: dict[str, list[int]] = field(default_factory=dict)
    """For each list that lost entries: its pointer in the file -> the file positions of the entries kept.

    Lists in `ir` lack the skipped entries, so positions in `ir` (and the pointers the index and
    the rules build from them) differ from the file's after the first skipped entry; `file_pointer`
    maps them back.
    """

    _holders: tuple[int, frozenset[str]] = field(
        default=(0, frozenset()), init=False, repr=False, compare=False
    )

    def incomplete(self, workload_pointer: str) -> bool:
        """Whether entries of this workload (a pointer into `ir`) were left out.

        Absence-based checks must not judge such a workload.
        """
        if self._holders[0] != len(self.skipped):
            # Every proper prefix of a skipped pointer, built once: scanning `skipped` for each
            # workload took time quadratic in the file size when many entries broke the schema.
            holders: set[str] = set()
            for ptr in self.skipped:
                end = ptr.rfind("/")
                while end > 0 and ptr[:end] not in holders:  # shorter prefixes are in already
                    holders.add(ptr[:end])
                    end = ptr.rfind("/", 0, end)
            self._holders = (len(self.skipped), frozenset(holders))
        return self.file_pointer(workload_pointer) in self._holders[1]

    def file_pointer(self, pointer: str) -> str:
        """The pointer into the file of the value `pointer` names in `ir`."""
        if self.dialect.file_pointer is not None:
            pointer = self.dialect.file_pointer(pointer)
        if not self.kept or not pointer:
            return pointer
        tokens = pointer.split("/")  # still escaped, as the keys of `kept` are; tokens[0] is ""
        prefix = ""
        for n in range(1, len(tokens)):
            positions = self.kept.get(prefix)
            token = tokens[n]
            if positions is not None and token.isascii() and token.isdigit() and int(token) < len(positions):
                tokens[n] = str(positions[int(token)])
            prefix += "/" + tokens[n]
        return "/".join(tokens)

    def to_file(self, finding: Finding) -> Finding:
        """`finding` (made from `ir`) with its pointers mapped into the file."""
        if not self.kept and self.dialect.file_pointer is None:
            return finding
        pointer = self.file_pointer(finding.pointer)
        related = tuple(self.file_pointer(p) for p in finding.related)
        if pointer == finding.pointer and related == finding.related:
            return finding
        return dataclasses.replace(finding, pointer=pointer, related=related)

    size_bytes: int = 0
    dialect: Dialect = DOCUMENTED
    """The file's dialect (irtools.dialects): what it holds, and so which rules run on it."""
    member_offsets: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Top-level key -> (offset of the key, of its value) in the decoded text, when it was read member
    by member: finding positions then start at the member (irtools.positions)."""
    cores_handed: bool = False
    """Whether every core was handed to load_ir's `on_core` as it was read (the typed decoder's path)."""


CoreHook = Callable[[LoadedIR], None]
"""Called with each core as it is read: a LoadedIR of that core alone (its workloads, the file's DRAM
section and top-level numbers as far as read, that core's skipped entries), sharing the file's `kept`."""

ScannedElsewhere = Callable[[KeyScan], None]
"""Adds to a file's key scan that of its cores another process checks (irtools.forked_cores)."""

SplitHook = Callable[[decoder.Split, str, int], None]
"""Called once with a regular file's members as the typed decoder found them, before any is decoded, its
name and size (irtools.forked_cores hands some cores to another process there)."""


def load_ir(
    source: str | os.PathLike[str] | bytes,
    path: str | None = None,
    max_bytes: int | None = None,
    on_core: CoreHook | None = None,
    on_split: SplitHook | None = None,
) -> LoadedIR:
    """Load an IR from a path or from bytes; never raises for bad content, only for unreadable paths.

    A file larger than `max_bytes` is not read: it gets one GIR100 finding saying why. `on_core` is handed
    each core as it is read when the typed decoder reads the file (then `cores_handed` is set): the file's
    other members first, then the cores in file order, each already completed by the dialect's
    `finish_core`. A hook may change a core's workloads (irtools.streaming drops their L2 snapshots).
    `on_split` is handed the members of a regular file the typed decoder reads core by core.
    """
    if isinstance(source, bytes):
        return _load(source, path or "<bytes>", None, on_core)
    name = path or str(source)
    with open(source, "rb") as handle:
        status = os.fstat(handle.fileno())
        problem = size_problem(status.st_size, max_bytes)
        if problem:
            return LoadedIR(
                name, None, [Finding("GIR100", Severity.ERROR, problem)], size_bytes=status.st_size
            )
        # A regular file is read again rather than held (a pipe cannot be): the same open file, so a
        # file replaced meanwhile is not read, and one rewritten in place is caught (decoder.Reread).
        if not stat.S_ISREG(status.st_mode):
            return _load(handle.read(), name, None, on_core)  # a pipe: read once, as it comes
        again = decoder.Reread(handle, (status.st_size, status.st_mtime_ns))
        if decoder.enabled():
            # Its members found a chunk at a time: the file's bytes are never held whole.
            fast = decoder.scan(again, status.st_size)
            if fast is not None:
                if on_split is not None:
                    on_split(fast, name, status.st_size)
                loaded = load_typed(fast, name, status.st_size, on_core)
                if loaded is not None:
                    return loaded
                # The models read it, unless the chunks only mistook where a member ends: split it whole.
                # No core is handed over again: the hook has had some of them already, perhaps before the
                # top-level numbers the chunks missed (the reader of the hook takes `cores_handed`).
                return _load(_whole(handle), name, again, None, typed=fast.unsplit)
        return _load(_whole(handle), name, again, on_core)


def _load(
    data: bytes, name: str, again: decoder.Reread | None, on_core: CoreHook | None, typed: bool = True
) -> LoadedIR:
    """`data` loaded; `again`: the regular file it was read from, read again instead of holding it.
    `typed`: try the typed decoder first (unless it has already failed on this file)."""
    size = len(data)
    fast = decoder.split(data) if typed and decoder.enabled() else None
    if fast is not None:
        if again is not None:
            fast.read_again(again)
            del data
        loaded = load_typed(fast, name, size, on_core)
        if loaded is not None:
            return loaded
        del fast  # the models' read below reports the problem exactly
        if again is not None:
            data = _whole(again.handle)
    members = read_members(data)
    if members is not None:
        if again is not None:
            del data  # the decoded text is all that is needed now: a third less peak memory
        loaded = LoadedIR(name, None, members.findings, size_bytes=size)
        try:
            with gc_paused(), sharing_values():
                loaded.ir = _validate_any(members, loaded)
            loaded.member_offsets = members.offsets
            return _finish(loaded)
        except StreamError:
            del members, loaded  # the whole-document read below reports the problem exactly
        if again is not None:
            data = _whole(again.handle)
    raw = read_bytes(data)
    del data
    loaded = LoadedIR(name, None, list(raw.findings), size_bytes=size)
    if not raw.ok:
        return loaded
    doc = raw.data
    del raw
    with gc_paused(), sharing_values():
        if isinstance(doc, dict):
            loaded.ir = _validate_any(_drain(doc), loaded)
        else:
            _not_an_object(doc, loaded)
    return _finish(loaded)


def load_typed(fast: decoder.Split, name: str, size: int, on_core: CoreHook | None) -> LoadedIR | None:
    """The file's members decoded by the typed decoder; None when it meets what only the models' reader
    reports exactly (StreamError)."""
    loaded = LoadedIR(name, None, fast.findings, size_bytes=size)
    try:
        with gc_paused(), sharing_values():
            dialect = fast.dialect()
            # A hook that keeps little of each core (irtools.streaming) has no use for shared values.
            streamed = on_core is not None
            decoded = fast.members(dialect.parts, cores_last=streamed, share_cores=not streamed)
            loaded.ir = _validate_any(decoded, loaded, dialect, on_core, fast.scanned_elsewhere)
    except StreamError:
        return None
    loaded.member_offsets = fast.offsets
    loaded.cores_handed = on_core is not None
    return _finish(loaded)


def _whole(handle: BinaryIO) -> bytes:
    handle.seek(0)
    return handle.read()


def _validate_any(
    members: Iterable[tuple[str, Any]],
    loaded: LoadedIR,
    dialect: Dialect | None = None,
    on_core: CoreHook | None = None,
    scanned_elsewhere: ScannedElsewhere | None = None,
) -> IRView | None:
    """The IR in whichever dialect its members show (or `dialect`), validated against that dialect's
    models; each core handed to `on_core` as it is validated."""
    if dialect is None:
        dialect, members = sniff(members)
    loaded.dialect = dialect
    top: IRView | None = _validate_members(members, loaded, dialect, on_core, scanned_elsewhere)
    if top is None:
        return None
    if dialect.note:
        loaded.findings.insert(0, Finding("GIR103", Severity.INFO, dialect.note, ""))
    return top if dialect.finish is None else dialect.finish(top)


def _finish(loaded: LoadedIR) -> LoadedIR:
    if loaded.skipped:
        loaded.findings.append(
            Finding(
                "GIR101",
                Severity.INFO,
                f"{len(loaded.skipped)} entries with schema errors were left out of the semantic checks",
                loaded.skipped[0],
            )
        )
    return loaded


def _note_unchecked(doc: Any, skipped: list[str], loaded: LoadedIR) -> None:
    """Remember what the `skipped` entries of `doc` name, so cross-reference rules do not call it missing."""
    for ptr in skipped:
        depth = ptr.count("/")  # skipped pointers: /-1/side/i, /core/w or /core/w/list/i
        if not (
            depth == 2 or (depth == 3 and ptr.startswith("/-1/out/")) or (depth == 4 and "/ofmap/" in ptr)
        ):
            continue  # names no workload and produces no transfer
        tokens = jp.split(ptr)
        try:
            value = jp.resolve(doc, ptr)
        except (KeyError, IndexError, TypeError, ValueError):
            continue
        if not isinstance(value, dict):
            continue
        if tokens[:2] == ["-1", "out"] and type(value.get("transfer_id")) is int:
            loaded.unchecked_transfer_ids.add(value["transfer_id"])
        elif len(tokens) == 2 and type(value.get("workload_id")) is int:
            loaded.unchecked_workloads.add((int(tokens[0]), value["workload_id"]))
            ofmaps = value.get("ofmap")
            for o in ofmaps if isinstance(ofmaps, list) else ():
                if isinstance(o, dict) and type(o.get("transfer_id")) is int:
                    loaded.unchecked_transfer_ids.add(o["transfer_id"])
        elif len(tokens) == 4 and tokens[2] == "ofmap" and type(value.get("transfer_id")) is int:
            loaded.unchecked_transfer_ids.add(value["transfer_id"])


@functools.cache
def _adapter(model: type) -> TypeAdapter[Any]:
    return TypeAdapter(model)


def _valid(model: type, value: Any, ptr: str, skipped: list[str]) -> Any:
    if not isinstance(value, dict):  # the strict models take only objects; skip building the error
        skipped.append(ptr)
        return None
    try:
        return _adapter(model).validate_python(value)
    except ValidationError:
        skipped.append(ptr)
        return None


def _valid_list(
    model: type, entries: list[Any], ptr: str, skipped: list[str], kept: dict[str, list[int]]
) -> list[Any]:
    """The entries that fit `model`; records the kept positions in `kept[ptr]` when some do not."""
    prefix = ptr + "/"  # positions need no escaping; jp.extend per entry cost more than validating it
    parsed = [_valid(model, e, prefix + str(i), skipped) for i, e in enumerate(entries)]
    positions = [i for i, e in enumerate(parsed) if e is not None]
    if len(positions) < len(parsed):
        kept[ptr] = positions
    return [e for e in parsed if e is not None]


def _valid_workload(
    parts: PartModels, value: Any, ptr: str, skipped: list[str], kept: dict[str, list[int]]
) -> Any:
    """A workload without its broken list entries (ifmap, ofmap, buffer, WL0), or None if still broken.

    Its place in the core's order and its outgoing transfers stay when only entries break.
    """
    try:
        return parts.workload.model_validate(value)  # type: ignore[attr-defined]
    except ValidationError:
        pass
    if not isinstance(value, dict):
        skipped.append(ptr)
        return None
    cleaned = dict(value)
    dropped: list[str] = []
    positions: dict[str, list[int]] = {}
    for key, model in parts.workload_lists.items():
        entries = value.get(key)
        if isinstance(entries, list):
            list_ptr = jp.extend(ptr, key)
            _valid_list(model, entries, list_ptr, dropped, positions)
            if list_ptr in positions:  # some entries break the schema: the workload keeps the others
                cleaned[key] = [entries[i] for i in positions[list_ptr]]
    workload = _valid(parts.workload, cleaned, ptr, skipped)
    if workload is not None:
        skipped.extend(dropped)
        kept.update(positions)
    return workload


@functools.cache
def _core_adapter(workload: type) -> TypeAdapter[dict[str, Any]]:
    """A core's workloads, validated as {key: workloads} so error locations start at the core key."""
    return TypeAdapter(dict[str, list[workload]])  # type: ignore[valid-type]


@functools.cache
def _dram_adapter(section: type) -> TypeAdapter[dict[str, Any]]:
    """The DRAM section, validated as {"-1": section} for the same reason."""
    return TypeAdapter(dict[str, section])  # type: ignore[valid-type]


def _drain(doc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """The members of `doc`, each removed as it is given, so validated parts are released."""
    for key in list(doc):
        yield key, doc.pop(key)


def _not_an_object(doc: Any, loaded: LoadedIR) -> None:
    schema = SchemaErrors()
    try:
        DOCUMENTED.parts.top.model_validate(doc)  # type: ignore[attr-defined]  # no dialect shows: the document's
    except ValidationError as exc:
        schema.add(exc, doc)
    loaded.findings.extend(schema.findings())


def _validate_members(
    members: Iterable[tuple[str, Any]],
    loaded: LoadedIR,
    dialect: Dialect,
    on_core: CoreHook | None,
    scanned_elsewhere: ScannedElsewhere | None = None,
) -> Any:
    """The dialect's top model from a file's top-level members, each validated and released as it comes.

    The raw JSON of a core is dropped as soon as its models exist: a whole document as dicts
    next to the whole model tree doubled the peak memory. A part that breaks the schema is
    rebuilt from its entries that are valid on their own, so the semantic checks still run on
    the rest. Findings come in the order of the models (DRAM, top level, cores in file order),
    wherever the file puts its keys. None for a JSON object that is no IR at all. The keys of the cores
    another process checks (`Decoded.checked_elsewhere`) are its scan's, added by `scanned_elsewhere` once
    every core is read.
    """
    parts = dialect.parts
    schema = SchemaErrors()
    keys = parts.key_scan()
    skipped: dict[str, list[str]] = {}  # per part, merged in the order of the findings
    top: dict[str, Any] = {}
    cores: dict[str, list[Any]] = {}
    for key, value in members:
        if isinstance(value, decoder.Decoded):  # decoded into Structs: valid, no unknown or extension key
            skipped[key] = []
            if key == "-1":
                top[key] = value.value
            else:
                cores[key] = value.value
                if not value.checked_elsewhere:
                    keys.decoded_core(key, value.value, value.extension_keys, was_written)
                _core_read(key, value.value, [], loaded, dialect, top, on_core, not value.checked_elsewhere)
            continue
        if not CORE_KEY.match(key):
            top[key] = _dram(parts, value, loaded, schema, keys, skipped) if key == "-1" else value
            continue
        workloads = _validate_part(_core_adapter(parts.workload), key, value, schema)
        lost = skipped[key] = []
        if workloads is None:
            workloads = _partial_core(parts, key, value, lost, loaded.kept)
            _note_unchecked({key: value}, lost, loaded)
        cores[key] = workloads
        keys.core(key, value, lost)
        del value  # before the next member is parsed
        _core_read(key, workloads, lost, loaded, dialect, top, on_core)
    if scanned_elsewhere is not None:
        scanned_elsewhere(keys)
    if "-1" not in top and not cores:
        loaded.findings.append(_not_a_scheduler_ir(top))
        return None
    keys.top(top)
    ir: Any = None
    dram_struct = top.get("-1") if model_of(top.get("-1")) is not None else None
    if dram_struct is not None:  # the top model takes its own DRAM model: an empty one stands in
        top["-1"] = parts.dram_section.model_construct(in_=[], out=[])  # type: ignore[attr-defined]
    ir = _valid_top(parts, top)
    if ir is None:
        try:
            ir = parts.top.model_validate(top)  # type: ignore[attr-defined]
        except ValidationError as exc:
            schema.add(exc, top, "")
    if dram_struct is not None:
        top["-1"] = dram_struct
        if ir is not None:
            ir.dram = dram_struct
    order = ["-1", "", *cores]
    for part_key in order:
        loaded.skipped.extend(skipped.get(part_key, ()))
    loaded.findings.extend(schema.findings(order))
    loaded.findings.extend(keys.findings())
    if ir is None:
        return _partial(parts, top, cores)
    ir.cores = cores
    return ir


def _core_read(
    key: str,
    workloads: list[Any],
    lost: list[str],
    loaded: LoadedIR,
    dialect: Dialect,
    top: dict[str, Any],
    on_core: CoreHook | None,
    finish: bool = True,
) -> None:
    """A core just validated: completed by the dialect (`finish_core`, unless not to `finish` it), then
    handed to `on_core` as a file of its own: the DRAM section and the top-level numbers read so far
    (`members(cores_last=True)` gives them first), valid as the top model would take them (`_valid_scalars`)."""
    if finish and dialect.finish_core is not None:
        dialect.finish_core(workloads)
    if on_core is None:
        return
    view = _partial(dialect.parts, top, {key: workloads})
    on_core(
        LoadedIR(
            loaded.path, view, skipped=lost, kept=loaded.kept, size_bytes=loaded.size_bytes, dialect=dialect
        )
    )


def _partial(parts: PartModels, top: dict[str, Any], cores: dict[str, list[Any]]) -> PartialIR:
    """`cores` with the valid parts of the top level: its DRAM section (an empty one when it has none
    the dialect's model takes) and the top-level numbers the schema allows (`_valid_scalars`)."""
    dram = top.get("-1")
    if not is_model(dram, parts.dram_section):
        dram = parts.dram_section.model_construct(in_=[], out=[])  # type: ignore[attr-defined]
    return PartialIR(dram=dram, cores=cores, **_valid_scalars(parts, top))


def _not_a_scheduler_ir(top: dict[str, Any]) -> Finding:
    """One finding for a JSON object with neither a DRAM section nor a core (a trace, a schema, ...):
    a list of every required key it lacks would bury the point."""
    shown = ", ".join(json.dumps(k) for k in list(top)[:5]) + (", ..." if len(top) > 5 else "")
    return Finding(
        "GIR101",
        Severity.ERROR,
        'not a Scheduler IR: no DRAM section "-1" and no core key ("0", "1", ...); '
        + (f"top-level keys: {shown}" if top else "the object is empty"),
        "",
    )


def _validate_part(adapter: TypeAdapter[dict[str, Any]], key: str, value: Any, schema: SchemaErrors) -> Any:
    """`value` validated as the file's member `key`, or None with its errors added to `schema`.

    Rebuild a broken part after this returns: the error holds every error and is released here.
    """
    part = {key: value}
    try:
        return adapter.validate_python(part)[key]
    except ValidationError as exc:
        schema.add(exc, part, key)
        return None


def _dram(
    parts: PartModels,
    value: Any,
    loaded: LoadedIR,
    schema: SchemaErrors,
    keys: KeyScan,
    skipped: dict[str, list[str]],
) -> Any:
    """The DRAM section as a model: without its broken entries when some break the schema."""
    lost = skipped["-1"] = []
    section = _validate_part(_dram_adapter(parts.dram_section), "-1", value, schema)
    if section is None:
        sides: dict[str, list[Any]] = {}
        for side, model in parts.dram_entries.items():
            entries = value.get(side) if isinstance(value, dict) else None
            entries = entries if isinstance(entries, list) else []
            sides[side] = _valid_list(model, entries, jp.join("-1", side), lost, loaded.kept)
        _note_unchecked({"-1": value}, lost, loaded)
        section = parts.dram_section.model_construct(in_=sides["in"], out=sides["out"])  # type: ignore[attr-defined]
    keys.dram(value, lost)
    return section


def _valid_top(parts: PartModels, top: dict[str, Any]) -> Any:
    """The top model, built without running its validator where the model would take `top` as it is:
    a DRAM section (a model or Struct, already validated) and every top-level number present and valid
    (its other keys it ignores, the cores come apart). None otherwise: then the model judges, and
    reports, as the reference does.

    The top model's validator is built on first use (`defer_build`) for its whole tree of nested
    models: 0.09 s of every process that loads a file, whose parts the typed decoder has read."""
    fields = set(parts.top.model_fields)  # type: ignore[attr-defined]
    if (
        reference.active()
        or "-1" not in top
        or CORES_FIELD in top
        or fields != {"dram", "cores", *parts.scalars}
    ):
        return None
    scalars = _valid_scalars(parts, top)
    if None in scalars.values():
        return None
    return parts.top.model_construct(dram=top["-1"], **scalars)  # type: ignore[attr-defined]


def _valid_scalars(parts: PartModels, top: dict[str, Any]) -> dict[str, Any]:
    """The top-level numbers that are valid (None for the others), by the model's own bounds."""
    fields: dict[str, Any] = {}
    declared = parts.top.model_fields  # type: ignore[attr-defined]
    for name in parts.scalars:
        value = top.get(declared[name].alias or name)  # the key the file writes it under
        fields[name] = value if type(value) is int and 0 < value <= INT64_MAX else None
    return fields


def _partial_core(
    parts: PartModels, key: str, workloads: Any, skipped: list[str], kept: dict[str, list[int]]
) -> list[Any]:
    """The workloads of a core that are valid on their own (without their broken list entries)."""
    if not isinstance(workloads, list):
        return []
    parsed = [_valid_workload(parts, w, jp.join(key, i), skipped, kept) for i, w in enumerate(workloads)]
    valid = [w for w in parsed if w is not None]
    if len(valid) < len(parsed):
        kept[jp.join(key)] = [i for i, w in enumerate(parsed) if w is not None]
    return valid
