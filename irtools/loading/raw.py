"""The raw dialect: recognize it, validate it against its own models, and index it like a documented file.

The raw models are kept (`LoadedIR.raw`) for what only this dialect has (`max_workload_id`,
`block`); the rules and tables read a view of the same data in the documented models, where
every value the dialect lacks (addresses, tensor ids, align, bitwidth, buffersize, ring regions,
WL0) is None or empty, never invented. Sizes, which this dialect gives in bits (8 per int8
element: an fmap's size is 8 x its volume), are held in bytes as in the documented format. Rules that need those values are skipped (ADDRESS_RULES).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from irtools import pointer as jp
from irtools.findings import Finding, Severity
from irtools.model import (
    BufferEntry,
    CoreDestination,
    CoreSource,
    DramDestination,
    DramIn,
    DramOut,
    DramSection,
    DramSource,
    IfmapTensor,
    OfmapTensor,
    SchedulerIR,
    WeightTensor,
    Workload,
)
from irtools.model.ir import CORE_KEY
from irtools.model.raw import (
    RawBufferEntry,
    RawCoreDestination,
    RawDramDestination,
    RawDramIn,
    RawDramOut,
    RawDramSection,
    RawIfmap,
    RawIR,
    RawOfmap,
    RawSource,
    RawWeight,
    RawWorkload,
    flat_ids,
)
from irtools.loading.keys import KeyScan, _fields, _note
from irtools.loading.schema_errors import SchemaErrors

if TYPE_CHECKING:
    from irtools.loading.load import LoadedIR

RAW = "raw"
DOCUMENTED = "documented"

ADDRESS_RULES = {
    "GIR301": "L2 addresses",
    "GIR302": "L2 addresses",
    "GIR303": "ring_buffer_info",
    "GIR306": "cur_wl_ifmap flags",
    "GIR307": "align and bitwidth",
    "GIR308": "L2 addresses",
    "GIR401": "a WL0 snapshot",
    "GIR402": "a WL0 snapshot",
}
"""Rules that read what the raw dialect does not have, and what that is."""

DIALECT_NOTE = (
    "Gemini scheduler IR before address allocation (raw dialect: SchNode::IR_gen output, "
    "buffer entries hold 1 KiB block counts instead of addresses); checked against its own schema "
    "(irtools schema --dialect raw)"
)


def skipped_note() -> str:
    """The one message saying which rules do not run on this dialect and why."""
    by_need: dict[str, list[str]] = {}
    for code, need in ADDRESS_RULES.items():
        by_need.setdefault(need, []).append(code)
    reasons = "; ".join(
        f"{', '.join(codes)} need{'s' if len(codes) == 1 else ''} {need}" for need, codes in by_need.items()
    )
    return f"rules skipped on the raw dialect, which has no such data: {reasons}"


# --- detection --------------------------------------------------------------------------------------------


def core_dialect(workloads: Any, sample: int = 8) -> str | None:
    """RAW or DOCUMENTED by a majority of a core's first workloads, None when they show nothing.

    A workload votes raw for an `ifmap` object or buffer entries with `block` and no `address`, and
    documented for an `ifmap` list or entries with `address` and no `block`: one damaged workload of a
    documented file does not turn the whole file into the other dialect.
    """
    votes = {RAW: 0, DOCUMENTED: 0}
    for wl in workloads[:sample] if isinstance(workloads, list) else ():
        if not isinstance(wl, dict):
            continue
        ifmap = wl.get("ifmap")
        if isinstance(ifmap, dict | list):
            votes[RAW if isinstance(ifmap, dict) else DOCUMENTED] += 1
        buffer = wl.get("buffer")
        for b in buffer if isinstance(buffer, list) else ():
            if isinstance(b, dict) and ("block" in b) != ("address" in b):
                votes[RAW if "block" in b else DOCUMENTED] += 1
                break
    if votes[RAW] == votes[DOCUMENTED]:
        return None
    return RAW if votes[RAW] > votes[DOCUMENTED] else DOCUMENTED


def dram_dialect(section: Any) -> str | None:
    """RAW or DOCUMENTED from the DRAM section's destinations (`id` or `core_id`)."""
    entries = section.get("out") if isinstance(section, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        for dest in (entry.get("destination") if isinstance(entry, dict) else None) or ():
            if isinstance(dest, dict) and ("id" in dest) != ("core_id" in dest):
                return RAW if "id" in dest else DOCUMENTED
    return None


def sniff(members: Iterable[tuple[str, Any]]) -> tuple[str, Iterator[tuple[str, Any]]]:
    """The file's dialect, and all the members again (none lost).

    The first core that shows its shape decides: its members come after "-1" in the scheduler's
    files, so only the DRAM section is held meanwhile. A file whose cores show nothing is judged
    by its DRAM destinations, then taken as documented.
    """
    stream = iter(members)
    seen: list[tuple[str, Any]] = []
    for key, value in stream:
        seen.append((key, value))
        found = core_dialect(value) if CORE_KEY.match(key) else DOCUMENTED if key == "buffersize" else None
        if found is not None:
            return found, itertools.chain(seen, stream)
    dram = next((value for key, value in seen if key == "-1"), None)
    return dram_dialect(dram) or DOCUMENTED, iter(seen)


# --- validation -------------------------------------------------------------------------------------------

_CORE = TypeAdapter(dict[str, list[RawWorkload]])
_DRAM = TypeAdapter(dict[str, RawDramSection])
_WORKLOAD = TypeAdapter(RawWorkload)
_DRAM_ENTRY = {"in": TypeAdapter(RawDramIn), "out": TypeAdapter(RawDramOut)}


def validate_raw_members(members: Iterable[tuple[str, Any]], loaded: LoadedIR) -> SchedulerIR:
    """The raw IR from a file's members: raw models in `loaded.raw`, the documented view returned."""
    from irtools.loading.load import _note_unchecked, _valid_list

    loaded.dialect = RAW
    schema = SchemaErrors()
    keys = RawKeyScan()
    skipped: dict[str, list[str]] = {}
    top: dict[str, Any] = {}
    cores: dict[str, list[RawWorkload]] = {}
    for key, value in members:
        if not CORE_KEY.match(key):
            if key == "-1":
                lost = skipped["-1"] = []
                section = _part(_DRAM, key, value, schema)
                if section is None:
                    sides = {}
                    for side, model in (("in", RawDramIn), ("out", RawDramOut)):
                        entries = value.get(side) if isinstance(value, dict) else None
                        entries = entries if isinstance(entries, list) else []
                        sides[side] = _valid_list(model, entries, jp.join("-1", side), lost, loaded.kept)
                    _note_unchecked({"-1": value}, lost, loaded)
                    section = RawDramSection.model_construct(in_=sides["in"], out=sides["out"])
                keys.dram(value, lost)
                top[key] = section
            else:
                top[key] = value
            continue
        workloads = _part(_CORE, key, value, schema)
        lost = skipped[key] = []
        if workloads is None:
            workloads = (
                _valid_list(RawWorkload, value, jp.join(key), lost, loaded.kept)
                if isinstance(value, list)
                else []
            )
            _note_unchecked({key: value}, lost, loaded)
        cores[key] = workloads
        keys.core(key, value, lost)
        del value
    keys.top(top)
    raw: RawIR | None = None
    try:
        raw = RawIR.model_validate(top)
    except ValidationError as exc:
        schema.add(exc, top, "")
    order = ["-1", "", *cores]
    for part in order:
        loaded.skipped.extend(skipped.get(part, ()))
    loaded.findings.append(Finding("GIR103", Severity.INFO, DIALECT_NOTE, ""))
    loaded.findings.append(Finding("GIR103", Severity.INFO, skipped_note(), ""))
    loaded.findings.extend(schema.findings(order))
    loaded.findings.extend(keys.findings())
    if raw is None:
        dram = top.get("-1")
        if not isinstance(dram, RawDramSection):
            dram = RawDramSection.model_construct(in_=[], out=[])
        scalars: dict[str, Any] = {
            n: v if type(v) is int and v > 0 else None for n, v in ((n, top.get(n)) for n in _SCALARS)
        }
        raw = RawIR.model_construct(dram=dram, **scalars)
    raw.cores = cores
    loaded.raw = raw
    return documented_view(raw)


_SCALARS = ("top_batch_cut", "xlen", "ylen")


def _part(adapter: TypeAdapter[dict[str, Any]], key: str, value: Any, schema: SchemaErrors) -> Any:
    part = {key: value}
    try:
        return adapter.validate_python(part)[key]
    except ValidationError as exc:
        schema.add(exc, part, key)
        return None


# --- the documented view ----------------------------------------------------------------------------------


@functools.cache
def _slots(cls: type) -> tuple[tuple[Any, str], ...]:
    """(slot setter, field name) of every field of a slotted record class."""
    names = tuple(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    return tuple((getattr(cls, name).__set__, name) for name in names)


def _record(cls: type, **values: Any) -> Any:
    """A record of the documented models holding `values` as given, unvalidated: None where the dialect has nothing."""
    obj: Any = object.__new__(cls)
    get = values.get
    for setter, name in _slots(cls):
        setter(obj, get(name))
    return obj


def coord(value: int | list[int]) -> list[int]:
    """A raw range bound as 4 coordinates: a weight's output channel K as [K, 0, 0, 0], a 3-D box padded with 0."""
    if isinstance(value, int):
        return [value, 0, 0, 0]
    return value if len(value) == 4 else [*value, *([0] * (4 - len(value)))]


def byte_size(bits: int | None) -> int | None:
    """A raw size (bits: 8 per int8 element) in bytes, as the documented models hold it."""
    return None if bits is None else -(-bits // 8)


def _destination(d: RawCoreDestination | RawDramDestination) -> Any:
    if isinstance(d, RawCoreDestination):
        return _record(
            CoreDestination, type="core", core_id=d.id, workload_id=d.workload_id, layer_name=d.layer_name
        )
    return _record(DramDestination, type="DRAM", core_id=-1)


def _source(s: RawSource) -> Any:
    common = {
        "transfer_id": s.transfer_id,
        "size": byte_size(s.size),
        "lower": coord(s.lower),
        "upper": coord(s.upper),
    }
    if s.type == "DRAM":
        return _record(DramSource, type="DRAM", core_id=-1, layer_name=s.layer_name, **common)
    return _record(CoreSource, type="core", core_id=s.id, layer_name=s.layer_name, **common)


def _buffer(b: RawBufferEntry) -> Any:
    return _record(
        BufferEntry,
        type=b.type,
        size=byte_size(b.size),
        lower=coord(b.lower),
        upper=coord(b.upper),
        layer_name=b.layer,
        source=None if b.source is None else [_source(s) for s in b.source],
        transfer_id=None if b.transfer_id is None else flat_ids(b.transfer_id),
    )


def _ifmap(i: RawIfmap) -> Any:
    return _record(IfmapTensor, lower=i.lower, upper=i.upper, transfer_id=i.transfer_id)


def _ofmap(o: RawOfmap) -> Any:
    return _record(
        OfmapTensor,
        lower=o.lower,
        upper=o.upper,
        size=byte_size(o.size),
        transfer_id=o.transfer_id,
        destination=[_destination(d) for d in o.destination],
    )


def _weight(w: RawWeight) -> Any:
    return _record(
        WeightTensor,
        lower=coord(w.lower),
        upper=coord(w.upper),
        size=byte_size(w.size),
        transfer_id=w.transfer_id,
    )


def _workload(w: RawWorkload) -> Workload:
    return Workload.model_construct(
        workload_id=w.workload_id,
        layer_name=w.layer_name,
        layer_type=w.layer_type,  # type: ignore[arg-type]  # None for Transpose: tables show it empty
        time=w.time,
        workload=w.workload,
        ofmap_size=-(-w.ofmap_size // 8),
        ifmap=[_ifmap(w.ifmap)],
        ofmap=[_ofmap(o) for o in w.ofmap],
        buffer=[_buffer(b) for b in w.buffer],
        ring_buffer_info=[],
        weight=None if w.weight is None else _weight(w.weight),
        tile_info=None,
        tile_padding_tblr=None,
        wl0_buffer=None,
        wl1_buffer=None,
    )


def documented_view(raw: RawIR) -> SchedulerIR:
    """The raw IR in the documented models, for the shared index, rules and tables."""
    cores = {key: [_workload(w) for w in workloads] for key, workloads in raw.cores.items()}
    layer_of = {(int(key), w.workload_id): w.layer_name for key, ws in raw.cores.items() for w in ws}
    dram_in = [
        _record(
            DramIn,
            core_id=e.core_id,
            workload_id=e.workload_id,
            layer_name=layer_of.get((e.core_id, e.workload_id), ""),
            lower=e.lower,
            upper=e.upper,
            transfer_id=e.transfer_id,
            related_ofmap=e.related_ofmap,
        )
        for e in raw.dram.in_
    ]
    dram_out = [
        _record(
            DramOut,
            type=e.type,
            transfer_id=e.transfer_id,
            size=byte_size(e.size),
            lower=coord(e.lower),
            upper=coord(e.upper),
            destination=[_destination(d) for d in e.destination],
            related_ifmap=e.related_ifmap,
        )
        for e in raw.dram.out
    ]
    ir = SchedulerIR.model_construct(
        dram=DramSection.model_construct(in_=dram_in, out=dram_out),
        buffersize=None,  # type: ignore[arg-type]  # the dialect records no L2 size
        top_batch_cut=raw.top_batch_cut,
        xlen=raw.xlen,
        ylen=raw.ylen,
    )
    ir.cores = cores
    return ir


_IFMAP_ITEM = re.compile(r"^(/[^/]+/[0-9]+/ifmap)/0(?=/|$)")


def file_pointer(pointer: str) -> str:
    """A pointer into the documented view as a pointer into the raw file: its one ifmap is an object, not a list."""
    return _IFMAP_ITEM.sub(r"\1", pointer)


# --- GIR103 on the raw file -------------------------------------------------------------------------------

_RAW_DESTINATIONS = {"core": RawCoreDestination, "DRAM": RawDramDestination}


class RawKeyScan(KeyScan):
    """Keys the raw models do not know, once per object kind (GIR103 warnings)."""

    def top(self, doc: dict[str, Any]) -> None:
        known, _ = _fields(RawIR)
        for key in doc:
            if key not in known and not CORE_KEY.match(key):
                _note(self._top, "RawIR", key, "", (), False)

    def dram(self, section: Any, skipped: Any = ()) -> None:
        self._skipped = set(skipped)
        if not isinstance(section, dict):
            return
        seen = self._dram
        self._record(seen, RawDramSection, section, "/-1", ())
        for side, model in (("in", RawDramIn), ("out", RawDramOut)):
            entries = section.get(side)
            if not isinstance(entries, list):
                continue
            base = "/-1/" + side
            for i, entry in self._entries(entries, base):
                self._record(seen, model, entry, base, (i,))
                for j, d in enumerate(entry.get("destination") or ()):
                    if isinstance(d, dict):
                        self._record(seen, RawCoreDestination, d, base, (i, "destination", j))

    def _workload(self, seen: Any, wl: dict[str, Any], base: str) -> None:
        self._record(seen, RawWorkload, wl, base, ())
        for key, model in (("ifmap", RawIfmap), ("weight", RawWeight)):
            if isinstance(wl.get(key), dict):
                self._record(seen, model, wl[key], base, (key,))
        ofmaps = wl.get("ofmap")
        for i, entry in self._entries(ofmaps if isinstance(ofmaps, list) else [], f"{base}/ofmap"):
            self._record(seen, RawOfmap, entry, base, ("ofmap", i))
            self._typed_list(
                seen, _RAW_DESTINATIONS, entry.get("destination"), base, ("ofmap", i, "destination")
            )
        buffer = wl.get("buffer")
        for i, entry in self._entries(buffer if isinstance(buffer, list) else [], f"{base}/buffer"):
            self._record(seen, RawBufferEntry, entry, base, ("buffer", i))
            for j, s in enumerate(entry.get("source") or ()):
                if isinstance(s, dict):
                    self._record(seen, RawSource, s, base, ("buffer", i, "source", j))
