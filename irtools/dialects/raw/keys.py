"""GIR103 and GIR104 on a raw file: the keys the raw models do not know, and the keys Gemini's IR_gen leaves out."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import msgspec

from irtools import pointer as jp
from irtools.dialects.keys import KeyScan
from irtools.dialects.raw.models import (
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
)
from irtools.findings import Finding, Severity

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
_RAW_SOURCES: dict[str, type] = {"DRAM": RawSource, "core": RawSource}


def _place(pointer: str, order: Mapping[str, int]) -> tuple[int, int, str]:
    """Where a workload's pointer (`/core/position`, perhaps with a tail) is met in the file."""
    core, position, *_ = jp.split(pointer)
    return order[core], int(position), pointer


class RawKeyScan(KeyScan):
    """Keys the raw models do not know, once per object kind (GIR103 warnings)."""

    TOP: ClassVar[type] = RawIR
    DRAM_SECTION: ClassVar[type] = RawDramSection
    DRAM_SIDES: ClassVar[Mapping[str, type]] = {"in": RawDramIn, "out": RawDramOut}
    DRAM_DESTINATIONS: ClassVar[Mapping[str, type]] = {
        "core": RawCoreDestination
    }  # a DRAM `out` entry feeds cores only
    WORKLOAD: ClassVar[type] = RawWorkload
    BUFFER: ClassVar[type] = RawBufferEntry

    def __init__(self) -> None:
        super().__init__()
        self._omitted: dict[tuple[str, str], list[Any]] = {}

    def add_cores(self, other: KeyScan, order: Mapping[str, int]) -> None:
        """As every scan adds them, with the keys left out in those cores: counted on, the first in the file
        named, in the order the file meets them."""
        super().add_cores(other, order)
        assert isinstance(other, RawKeyScan)
        for kind_key, (count, pointer) in other._omitted.items():
            found = self._omitted.get(kind_key)
            if found is None:
                self._omitted[kind_key] = [count, pointer]
            else:
                found[0] += count
                found[1] = min(found[1], pointer, key=lambda p: _place(p, order))
        self._omitted = dict(sorted(self._omitted.items(), key=lambda item: _place(item[1][1], order)))

    def findings(self) -> Iterator[Finding]:
        """GIR103 as for every dialect, then GIR104 for each key the scheduler left out and what that
        means."""
        yield from super().findings()
        for (kind, key), (count, pointer) in self._omitted.items():
            times = f" ({count} occurrences)" if count > 1 else ""
            yield Finding(
                "GIR104",
                Severity.INFO,
                f"key {key!r} left out in {kind}{times}: {OMITTED[kind, key]}",
                pointer,
            )

    def _core_parts(self, wls: list[Any]) -> Iterator[tuple[type, list[Any]]]:
        yield self.WORKLOAD, wls
        yield RawIfmap, [w["ifmap"] for w in wls]
        yield RawWeight, [w["weight"] for w in wls if w.get("weight") is not None]
        ofmaps = [e for w in wls for e in w.get("ofmap") or ()]
        yield RawOfmap, ofmaps
        destinations = [d for e in ofmaps for d in e["destination"]]
        for kind, model in _RAW_DESTINATIONS.items():
            yield model, [d for d in destinations if d["type"] == kind]
        buffer = [e for w in wls for e in w.get("buffer") or ()]
        yield self.BUFFER, buffer
        yield RawSource, [s for e in buffer for s in e.get("source") or ()]

    def _plain_workloads(self, key: str, workloads: list[Any]) -> None:
        for w, wl in enumerate(workloads):
            self._omissions(wl, key, w)

    def _decoded_workloads(self, key: str, workloads: list[Any]) -> None:
        unset = msgspec.UNSET  # the decoder's Structs hold UNSET for a key the file did not write
        firsts = []
        for order, (kind, name, missing) in enumerate(
            (
                ("RawWorkload", "buffer", [w for w, wl in enumerate(workloads) if _unwritten(wl, "buffer")]),
                (
                    "RawIfmap",
                    "transfer_id",
                    [w for w, wl in enumerate(workloads) if wl.waits.transfer_id_as_read is unset],
                ),
            )
        ):
            if missing:
                firsts.append((missing[0], order, kind, name, len(missing)))
        for first, _, kind, name, count in sorted(firsts):  # in file order, as _omissions meets them
            found = self._omitted.get((kind, name))
            if found is None:
                tail = "" if kind == "RawWorkload" else "/ifmap"
                self._omitted[(kind, name)] = [count, jp.join(key, first) + tail]
            else:
                found[0] += count

    def _omissions(self, wl: dict[str, Any], core: str, position: int) -> None:
        """GIR104: the keys IR_gen left out of this workload (the pointer is built for the first only)."""
        ifmap = wl.get("ifmap")
        for kind, key, holder, tail in (
            ("RawWorkload", "buffer", wl, ""),
            ("RawIfmap", "transfer_id", ifmap, "/ifmap"),
        ):
            if isinstance(holder, dict) and key not in holder:
                found = self._omitted.get((kind, key))
                if found is None:
                    self._omitted[(kind, key)] = [1, jp.join(core, position) + tail]
                else:
                    found[0] += 1

    def _workload(self, seen: Any, wl: dict[str, Any], base: str) -> None:
        self._record(seen, self.WORKLOAD, wl, base, ())
        core, position = jp.split(base)
        self._omissions(wl, core, int(position))
        for key, model in (("ifmap", RawIfmap), ("weight", RawWeight)):
            if isinstance(wl.get(key), dict):
                self._record(seen, model, wl[key], base, (key,))
        ofmaps = wl.get("ofmap")
        if isinstance(ofmaps, list):
            self._list(seen, RawOfmap, ofmaps, base, ("ofmap",), ("destination", _RAW_DESTINATIONS))
        buffer = wl.get("buffer")
        if isinstance(buffer, list):
            self._list(seen, self.BUFFER, buffer, base, ("buffer",), ("source", _RAW_SOURCES))


def _unwritten(struct: Any, name: str) -> bool:
    """Whether the decoded `struct` lacks the optional key `name` (a required one is always written)."""
    return getattr(struct, name + "_as_read", None) is msgspec.UNSET
