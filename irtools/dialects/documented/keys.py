"""GIR103 on a documented file: its models, and where in a workload each kind of object sits."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any, ClassVar

from irtools import pointer as jp
from irtools.dialects.documented.dram import CoreDestination, DramDestination, DramIn, DramOut, DramSection
from irtools.dialects.documented.ir import SchedulerIR
from irtools.dialects.documented.models import (
    BufferEntry,
    CoreSource,
    DramSource,
    IfmapTensor,
    OfmapTensor,
    Tile,
    WeightTensor,
    Wl0Entry,
    Workload,
)
from irtools.dialects.keys import KeyScan, WasWritten, _Seen, extension_note, known_keys, note_key

_DESTINATIONS = {"core": CoreDestination, "DRAM": DramDestination}
_SOURCES = {"DRAM": DramSource, "core": CoreSource}
_DRAM_SIDES = {"in": DramIn, "out": DramOut}
_TENSOR_LISTS = {"ifmap": IfmapTensor, "ofmap": OfmapTensor, "buffer": BufferEntry}
_WL0_LISTS = ("wl0_buffer", "wl1_buffer")
_NESTED = {"ofmap": ("destination", _DESTINATIONS), "buffer": ("source", _SOURCES)}
"""The typed lists inside each entry of a workload's tensor lists."""


class DocumentedKeyScan(KeyScan):
    """Keys the documented models do not know, and their extension keys (GIR103)."""

    TOP: ClassVar[type] = SchedulerIR
    DRAM_SECTION: ClassVar[type] = DramSection
    DRAM_SIDES = _DRAM_SIDES
    DRAM_DESTINATIONS = _DESTINATIONS

    def _decoded_extension_keys(
        self, seen: _Seen, key: str, workloads: list[Any], names: Collection[str], was_written: WasWritten
    ) -> None:
        """The extension keys of a decoded core in the order `_workload` meets them. Only the kinds that
        have extension keys are visited (Workload, BufferEntry, Tile, in `_workload`'s order): in a decoded
        core the others note nothing."""
        kinds = [m for m in (Workload, BufferEntry, Tile) if not known_keys(m)[1].isdisjoint(names)]
        for w, wl in enumerate(workloads):
            base = jp.join(key, w)
            holders: list[tuple[type, Any, tuple[Any, ...]]] = []
            if Workload in kinds:
                holders.append((Workload, wl, ()))
            if BufferEntry in kinds:
                holders.extend((BufferEntry, e, ("buffer", i)) for i, e in enumerate(wl.buffer))
            if Tile in kinds and wl.tile_info:
                holders.extend((Tile, t, ("tile_info", n)) for n, t in wl.tile_info.items())
            for model, obj, tokens in holders:
                for name in known_keys(model)[1]:
                    if was_written(obj, name):
                        note_key(seen, model.__name__, name, base, tokens, extension_note(model, name))

    def _core_parts(self, wls: list[Any]) -> Iterator[tuple[type, list[Any]]]:
        """(model, objects) of every kind of object in a schema-valid core of this dialect."""
        yield Workload, wls
        yield IfmapTensor, [e for w in wls for e in w["ifmap"]]
        ofmaps = [e for w in wls for e in w["ofmap"]]
        yield OfmapTensor, ofmaps
        destinations = [d for e in ofmaps for d in e["destination"]]
        for kind, model in _DESTINATIONS.items():
            yield model, [d for d in destinations if d["type"] == kind]
        buffer = [e for w in wls for e in w["buffer"]]
        yield BufferEntry, buffer
        sources = [s for e in buffer for s in e.get("source") or ()]
        for kind, model in _SOURCES.items():
            yield model, [s for s in sources if s["type"] == kind]
        yield WeightTensor, [w["weight"] for w in wls if w.get("weight") is not None]
        yield Wl0Entry, [e for w in wls for key in _WL0_LISTS for e in w.get(key) or ()]
        yield Tile, [t for w in wls for t in (w.get("tile_info") or {}).values()]

    def _workload(self, seen: _Seen, wl: dict[str, Any], base: str) -> None:
        self._record(seen, Workload, wl, base, ())
        for key, model in _TENSOR_LISTS.items():
            entries = wl.get(key)
            if isinstance(entries, list):
                self._list(seen, model, entries, base, (key,), _NESTED.get(key))
        weight = wl.get("weight")
        if isinstance(weight, dict):
            self._record(seen, WeightTensor, weight, base, ("weight",))
        for key in _WL0_LISTS:
            entries = wl.get(key)
            if isinstance(entries, list):
                for i, entry in self._entries(entries, f"{base}/{key}"):
                    self._record(seen, Wl0Entry, entry, base, (key, i))
        tiles = wl.get("tile_info")
        if isinstance(tiles, dict):
            for name, tile in tiles.items():
                if isinstance(tile, dict):
                    self._record(seen, Tile, tile, base, ("tile_info", name))
