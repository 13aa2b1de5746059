"""Read a file, parse it, and validate it against the models, keeping every well-formed part."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from irtools import pointer as jp
from irtools.findings import Finding, Severity
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
from irtools.rules.schema_errors import key_findings, schema_findings


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

    def incomplete(self, workload_pointer: str) -> bool:
        """Whether entries of this workload were left out, so absence-based checks must not judge it."""
        prefix = workload_pointer + "/"
        return any(p.startswith(prefix) for p in self.skipped)

    size_bytes: int = 0


def load_ir(source: str | os.PathLike[str] | bytes, path: str | None = None) -> LoadedIR:
    """Load an IR from a path or from bytes; never raises for bad content, only for unreadable paths."""
    if isinstance(source, bytes):
        data, name = source, path or "<bytes>"
    else:
        data, name = Path(source).read_bytes(), path or str(source)
    raw = read_bytes(data)
    loaded = LoadedIR(name, None, list(raw.findings), size_bytes=len(data))
    if not raw.ok:
        return loaded
    doc = raw.data
    del raw, data
    try:
        with gc_paused():
            loaded.ir = SchedulerIR.model_validate(doc)
    except ValidationError as exc:
        loaded.findings.extend(schema_findings(doc, exc.errors(include_url=False)))
        loaded.ir = _partial(doc, loaded.skipped)
        _note_unchecked(doc, loaded)
    if loaded.ir is not None:
        with gc_paused():
            loaded.findings.extend(key_findings(loaded.ir))
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


def _note_unchecked(doc: Any, loaded: LoadedIR) -> None:
    """Remember what skipped entries name, so cross-reference rules do not call it missing."""
    for ptr in loaded.skipped:
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
            for o in value.get("ofmap") or []:
                if isinstance(o, dict) and type(o.get("transfer_id")) is int:
                    loaded.unchecked_transfer_ids.add(o["transfer_id"])
        elif len(tokens) == 4 and tokens[2] == "ofmap" and type(value.get("transfer_id")) is int:
            loaded.unchecked_transfer_ids.add(value["transfer_id"])


def _valid(model: type[BaseModel], value: Any, ptr: str, skipped: list[str]) -> Any:
    try:
        return model.model_validate(value)
    except ValidationError:
        skipped.append(ptr)
        return None


_WORKLOAD_LISTS: dict[str, type[BaseModel]] = {
    "ifmap": IfmapTensor,
    "ofmap": OfmapTensor,
    "buffer": BufferEntry,
    "wl0_buffer": Wl0Entry,
    "wl1_buffer": Wl0Entry,
}


def _valid_workload(value: Any, ptr: str, skipped: list[str]) -> Workload | None:
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
    for key, model in _WORKLOAD_LISTS.items():
        entries = value.get(key)
        if isinstance(entries, list):
            kept = (_valid(model, e, jp.extend(ptr, key, i), dropped) for i, e in enumerate(entries))
            cleaned[key] = [e.model_dump(by_alias=True, exclude_unset=True) for e in kept if e is not None]
    workload: Workload | None = _valid(Workload, cleaned, ptr, skipped)
    if workload is not None:
        skipped.extend(dropped)
    return workload


def _partial(doc: Any, skipped: list[str]) -> SchedulerIR | None:
    """Build the IR from the entries that are valid on their own, so semantic checks still run."""
    if not isinstance(doc, dict):
        return None
    fields: dict[str, Any] = {}
    for name in ("buffersize", "top_batch_cut", "xlen", "ylen"):
        value = doc.get(name)
        fields[name] = value if type(value) is int and value > 0 else None
    dram = doc.get("-1")
    dram = dram if isinstance(dram, dict) else {}
    sections: dict[str, list[Any]] = {}
    for side, model in (("in", DramIn), ("out", DramOut)):
        entries = dram.get(side)
        entries = entries if isinstance(entries, list) else []
        parsed = (_valid(model, e, jp.join("-1", side, i), skipped) for i, e in enumerate(entries))
        sections[side] = [e for e in parsed if e is not None]
    fields["dram"] = DramSection.model_construct(in_=sections["in"], out=sections["out"])
    cores: dict[str, list[Workload]] = {}
    for key, workloads in doc.items():
        if not CORE_KEY.match(key) or not isinstance(workloads, list):
            continue
        parsed_wl = (_valid_workload(w, jp.join(key, i), skipped) for i, w in enumerate(workloads))
        cores[key] = [w for w in parsed_wl if w is not None]
    fields["cores"] = cores
    return SchedulerIR.model_construct(**fields)
