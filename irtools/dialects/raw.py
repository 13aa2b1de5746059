"""The raw dialect: Gemini's IR before address allocation (what `SchNode::IR_gen()` writes), declared.

Its own models (irtools.model.raw) are kept as `LoadedIR.raw` for what only this dialect has
(`max_workload_id`, `block`, inputs held ahead); the rules and tables read a view of the same data in
the documented models, where values the dialect lacks (addresses, tensor ids, align, bitwidth, ring
regions, WL0) are None or empty, never invented, and the capabilities say so. Sizes, which this dialect
gives in bits (8 per int8 element), are held in bytes as in the documented format.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from irtools.dialects.base import Capability, Dialect, PartModels, buffer_shows
from irtools.dialects.keys import KeyScan, _fields, _note
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
from irtools.model.raw_schema import build_raw_schema

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


# --- GIR103 and GIR104 on the raw file -------------------------------------------------------------------------------

OMITTED = {
    ("RawWorkload", "buffer"): (
        "IR_gen writes no buffer when nothing is held in L2 before the workload; read as an empty snapshot"
    ),
    ("RawIfmap", "transfer_id"): (
        "IR_gen writes no transfer_id when no producer's range meets the ifmap; read as an ifmap no "
        "transfer brings"
    ),
}
"""Keys Gemini's SchNode::IR_gen can leave out (GIR104), and what the omission means."""

_RAW_DESTINATIONS = {"core": RawCoreDestination, "DRAM": RawDramDestination}


class RawKeyScan(KeyScan):
    """Keys the raw models do not know, once per object kind (GIR103 warnings)."""

    TOP: type = RawIR
    WORKLOAD: type = RawWorkload
    BUFFER: type = RawBufferEntry

    def __init__(self) -> None:
        super().__init__()
        self._omitted: dict[tuple[str, str], list[Any]] = {}

    def top(self, doc: dict[str, Any]) -> None:
        known, _ = _fields(self.TOP)
        for key in doc:
            if key not in known and not CORE_KEY.match(key):
                _note(self._top, self.TOP.__name__, key, "", (), False)

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

    def findings(self) -> Iterator[Finding]:
        yield from super().findings()
        for (kind, key), (count, pointer) in self._omitted.items():
            times = f" ({count} occurrences)" if count > 1 else ""
            yield Finding(
                "GIR104",
                Severity.INFO,
                f"key {key!r} left out in {kind}{times}: {OMITTED[kind, key]}",
                pointer,
            )

    def _workload(self, seen: Any, wl: dict[str, Any], base: str) -> None:
        self._record(seen, self.WORKLOAD, wl, base, ())
        ifmap = wl.get("ifmap")
        for kind, key, holder, pointer in (
            ("RawWorkload", "buffer", wl, base),
            ("RawIfmap", "transfer_id", ifmap, base + "/ifmap"),
        ):
            if isinstance(holder, dict) and key not in holder:
                found = self._omitted.setdefault((kind, key), [0, pointer])
                found[0] += 1
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
            self._record(seen, self.BUFFER, entry, base, ("buffer", i))
            for j, s in enumerate(entry.get("source") or ()):
                if isinstance(s, dict):
                    self._record(seen, RawSource, s, base, ("buffer", i, "source", j))


# --- the declaration -------------------------------------------------------------------------------------


def shows_raw(workload: dict[str, Any]) -> bool:
    """An `ifmap` object, or buffer entries with `block` and no `address`."""
    if isinstance(workload.get("ifmap"), dict):
        return True
    return buffer_shows(workload, ("block",), ("address",))


RAW_CAPABILITIES = frozenset(
    {
        Capability.BLOCK_COUNTS,
        Capability.DRAM_WAITS,
        Capability.HELD_AHEAD,
        Capability.SOURCE_CHANNELS,
    }
)

RAW_PARTS = PartModels(
    top=RawIR,
    workload=RawWorkload,
    dram_section=RawDramSection,
    dram_entries={"in": RawDramIn, "out": RawDramOut},
    workload_lists={"ofmap": RawOfmap, "buffer": RawBufferEntry},
    scalars=("top_batch_cut", "xlen", "ylen"),
    key_scan=RawKeyScan,
)

RAW = Dialect(
    name="raw",
    title="Gemini's IR before address allocation (SchNode::IR_gen output): 1 KiB block counts, no addresses",
    note=(
        "Gemini scheduler IR before address allocation (raw dialect: SchNode::IR_gen output, "
        "buffer entries hold 1 KiB block counts instead of addresses); checked against its own schema "
        "(irtools schema --dialect raw)"
    ),
    capabilities=RAW_CAPABILITIES,
    parts=RAW_PARTS,
    shows=shows_raw,
    view=documented_view,
    file_pointer=file_pointer,
    schema=build_raw_schema,
)
