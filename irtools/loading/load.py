"""Read a file, parse it, and validate it against the models, keeping every well-formed part."""

from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.limits import size_problem
from irtools.loading.reader import gc_paused, read_bytes
from irtools.model import (
    BufferEntry,
    DramIn,
    DramOut,
    DramSection,
    IfmapTensor,
    OfmapTensor,
    SchedulerIR,
    Wl0Entry,
    Workload,
)
from irtools.model.ir import CORE_KEY
from irtools.rules.keys import KeyScan
from irtools.rules.schema_errors import SchemaErrors


@dataclass(slots=True)
class LoadedIR:
    """One file after loading: the model (None if unusable), load findings, and skipped parts."""

    path: str
    ir: SchedulerIR | None
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
        if not self.kept:
            return finding
        pointer = self.file_pointer(finding.pointer)
        related = tuple(self.file_pointer(p) for p in finding.related)
        if pointer == finding.pointer and related == finding.related:
            return finding
        return dataclasses.replace(finding, pointer=pointer, related=related)

    size_bytes: int = 0


def load_ir(
    source: str | os.PathLike[str] | bytes, path: str | None = None, max_bytes: int | None = None
) -> LoadedIR:
    """Load an IR from a path or from bytes; never raises for bad content, only for unreadable paths.

    A file larger than `max_bytes` is not read: it gets one GIR100 finding saying why.
    """
    if isinstance(source, bytes):
        data, name = source, path or "<bytes>"
    else:
        name = path or str(source)
        size = Path(source).stat().st_size
        problem = size_problem(size, max_bytes)
        if problem:
            return LoadedIR(name, None, [Finding("GIR100", Severity.ERROR, problem)], size_bytes=size)
        data = Path(source).read_bytes()
    raw = read_bytes(data)
    loaded = LoadedIR(name, None, list(raw.findings), size_bytes=len(data))
    if not raw.ok:
        return loaded
    doc = raw.data
    del raw, data
    with gc_paused():
        loaded.ir = _validate(doc, loaded)
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


_WORKLOAD_LISTS: dict[str, type] = {
    "ifmap": IfmapTensor,
    "ofmap": OfmapTensor,
    "buffer": BufferEntry,
    "wl0_buffer": Wl0Entry,
    "wl1_buffer": Wl0Entry,
}


def _valid_workload(value: Any, ptr: str, skipped: list[str], kept: dict[str, list[int]]) -> Workload | None:
    """A workload without its broken list entries (ifmap, ofmap, buffer, WL0), or None if still broken."""
    try:
        return Workload.model_validate(value)
    except ValidationError:
        pass
    if not isinstance(value, dict):
        skipped.append(ptr)
        return None
    cleaned = dict(value)
    dropped: list[str] = []
    positions: dict[str, list[int]] = {}
    for key, model in _WORKLOAD_LISTS.items():
        entries = value.get(key)
        if isinstance(entries, list):
            list_ptr = jp.extend(ptr, key)
            _valid_list(model, entries, list_ptr, dropped, positions)
            if list_ptr in positions:  # some entries break the schema: the workload keeps the others
                cleaned[key] = [entries[i] for i in positions[list_ptr]]
    workload: Workload | None = _valid(Workload, cleaned, ptr, skipped)
    if workload is not None:
        skipped.extend(dropped)
        kept.update(positions)
    return workload


_CORE = TypeAdapter(dict[str, list[Workload]])
"""A core's workloads, validated as {key: workloads} so error locations start at the core key."""


def _validate(doc: Any, loaded: LoadedIR) -> SchedulerIR | None:
    """The IR, validated one top-level part at a time; each core's raw JSON is released once validated.

    Holding the whole raw document next to the whole model tree doubled the peak memory. A part
    that breaks the schema is rebuilt from its entries that are valid on their own, so the
    semantic checks still run on the rest.
    """
    schema = SchemaErrors()
    keys = KeyScan()
    if not isinstance(doc, dict):
        try:
            SchedulerIR.model_validate(doc)
        except ValidationError as exc:
            schema.add(exc, doc)
        loaded.findings.extend(schema.findings())
        return None
    core_keys = [key for key in doc if CORE_KEY.match(key)]
    top = {key: value for key, value in doc.items() if not CORE_KEY.match(key)}
    ir: SchedulerIR | None = None
    try:
        ir = SchedulerIR.model_validate(top)
    except ValidationError as exc:
        schema.add(exc, top)
    skipped_before = len(loaded.skipped)
    fields = None if ir is not None else _partial_top(top, loaded.skipped, loaded.kept)
    skipped = loaded.skipped[skipped_before:]
    _note_unchecked(top, skipped, loaded)
    keys.top(top)
    keys.dram(top.get("-1"), skipped)
    del top
    cores: dict[str, list[Workload]] = {}
    for key in core_keys:
        part = {key: doc.pop(key)}
        try:
            cores[key] = _CORE.validate_python(part)[key]
        except ValidationError as exc:
            schema.add(exc, part)
        skipped = []
        if key not in cores:  # outside the handler, so the error (it holds every error) is released
            cores[key] = _partial_core(key, part[key], skipped, loaded.kept)
            _note_unchecked(part, skipped, loaded)
            loaded.skipped.extend(skipped)
        keys.core(key, part[key], skipped)
        del part
    loaded.findings.extend(schema.findings())
    loaded.findings.extend(keys.findings())
    if ir is not None:
        ir.cores = cores
        return ir
    assert fields is not None
    return SchedulerIR.model_construct(**fields, cores=cores)


def _partial_top(top: dict[str, Any], skipped: list[str], kept: dict[str, list[int]]) -> dict[str, Any]:
    """The top-level fields: valid scalars (None otherwise) and the DRAM entries valid on their own."""
    fields: dict[str, Any] = {}
    for name in ("buffersize", "top_batch_cut", "xlen", "ylen"):
        value = top.get(name)
        fields[name] = value if type(value) is int and value > 0 else None
    dram = top.get("-1")
    dram = dram if isinstance(dram, dict) else {}
    sections: dict[str, list[Any]] = {}
    for side, model in (("in", DramIn), ("out", DramOut)):
        entries = dram.get(side)
        entries = entries if isinstance(entries, list) else []
        sections[side] = _valid_list(model, entries, jp.join("-1", side), skipped, kept)
    fields["dram"] = DramSection.model_construct(in_=sections["in"], out=sections["out"])
    return fields


def _partial_core(key: str, workloads: Any, skipped: list[str], kept: dict[str, list[int]]) -> list[Workload]:
    """The workloads of a core that are valid on their own (without their broken list entries)."""
    if not isinstance(workloads, list):
        return []
    parsed = [_valid_workload(w, jp.join(key, i), skipped, kept) for i, w in enumerate(workloads)]
    valid = [w for w in parsed if w is not None]
    if len(valid) < len(parsed):
        kept[jp.join(key)] = [i for i, w in enumerate(parsed) if w is not None]
    return valid
