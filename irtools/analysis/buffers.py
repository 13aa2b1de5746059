"""L2 and WL0 snapshots as tensor lifetimes and per-snapshot occupancy: the walks, one pass per core
(the reference core's), and the choice of the columnar paths (l2_columnar, wl0_columnar)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter
from typing import Any, cast

import pandas as pd

from irtools.analysis.identity import workload_identity
from irtools.analysis.l2_columnar import columnar_tables
from irtools.analysis.tables import L2_OCCUPANCY, L2_REGIONS, TENSORS, WL0_OCCUPANCY, WL0_TENSORS
from irtools.analysis.wl0_columnar import wl0_columnar
from irtools.dialects.base import Capability
from irtools.dialects.documented import BufferEntry, Wl0Entry
from irtools.loading.boxes import tensor_columns
from irtools.loading.fast_types import is_model
from irtools.loading.index import IRIndex, WorkloadRef
from irtools.loading.l2 import Placement, linear, place, regions_of
from irtools.model.view import BufferView, PlacedEntry
from irtools.reference import fast_path

Segment = tuple[int, int]


def covered(segments: Iterable[Segment], lo: int, hi: int) -> tuple[int, int, list[int]]:
    """Bytes of [lo, hi) covered by the segments, the largest free gap, and which segments overlap others.

    One sort and one sweep: n log n in the number of segments.
    """
    order = sorted(range(len(seg := list(segments))), key=lambda i: seg[i])
    used, largest, cursor = 0, 0, lo
    reach, reach_owner = -1, -1
    overlapping: set[int] = set()
    for i in order:
        a, b = seg[i]
        if a < reach and a < b:
            overlapping.update((i, reach_owner))
        a, b = max(a, lo), min(b, hi)
        if b > reach:
            reach, reach_owner = b, i
        if a >= hi or b <= a:
            continue
        if a > cursor:
            largest = max(largest, a - cursor)
        if b > cursor:
            used += b - max(a, cursor)
            cursor = b
    largest = max(largest, hi - cursor) if cursor < hi else largest
    overlapping.discard(-1)
    return used, largest, sorted(overlapping)


@dataclass(slots=True)
class _Lifetime:
    row: dict[str, Any]
    last: int
    overlaps: bool = False


@dataclass(slots=True)
class _Lifetimes:
    """Open lifetimes of one core: an entry seen in the previous snapshot under the same key extends it."""

    done: list[_Lifetime] = field(default_factory=list)
    open: dict[Hashable, _Lifetime] = field(default_factory=dict)

    def see(
        self, key: Hashable, position: int, workload_id: int, make: Callable[[], dict[str, Any]]
    ) -> _Lifetime:
        life = self.open.get(key)
        if life is None or life.last != position - 1:
            life = _Lifetime(make(), position)
            life.row.update(first_position=position, first_workload_id=workload_id)
            self.done.append(life)
        life.last = position
        life.row.update(last_position=position, last_workload_id=workload_id)
        self.open[key] = life
        return life

    def rows(self) -> list[dict[str, Any]]:
        for life in self.done:
            life.row["snapshots"] = life.row["last_position"] - life.row["first_position"] + 1
            life.row["overlaps"] = life.overlaps
        return [life.row for life in self.done]


def _ids(ids: list[int] | None) -> str | None:
    return ";".join(map(str, ids)) if ids else None


def _source_kind(entry: BufferView) -> str | None:
    sources = entry.source
    if not sources:
        return None
    kind = sources[0].type
    if len(sources) > 1 and any(s.type != kind for s in sources):
        return "mixed"
    return "DRAM" if kind == "DRAM" else "core"


def _snapshot_key(ref: WorkloadRef) -> dict[str, Any]:
    w = ref.workload
    return {
        "core_id": ref.core_id,
        "position": ref.position,
        "workload_id": w.workload_id,
        "layer_name": w.layer_name,
    }


def _l2_tables_reference(index: IRIndex) -> dict[str, pd.DataFrame]:
    """`l2_tables` snapshot by snapshot, entry by entry."""
    # A file whose L2 size is unknown (broken buffersize; raw or alloc without --l2-size) is measured
    # against the highest address it uses. Only files with ring regions wrap tensors around.
    ring = index.has(Capability.RING_REGIONS)
    buffersize = index.l2_size or max(
        (e.address + e.size for ref in index.workloads() for e in index.placed(ref)), default=0
    )
    tensors: list[dict[str, Any]] = []
    occupancy: list[dict[str, Any]] = []
    regions_rows: list[dict[str, Any]] = []
    region_sets: dict[tuple[tuple[int, ...], ...], list[tuple[int, int]]] = {}
    placements: dict[tuple[int, int, int], Placement] = {}
    for core_id, refs in index.cores.items():
        lives = _Lifetimes()
        for ref in refs:
            w = ref.workload
            pairs = tuple(map(tuple, w.ring_buffer_info))
            regions = region_sets.get(pairs)
            if regions is None:
                regions = region_sets[pairs] = regions_of(w.ring_buffer_info, index.l2_size)
            region_id = id(regions)
            segments: list[Segment] = []
            owners: list[_Lifetime] = []
            by_type = {"ifmap": 0, "ofmap": 0, "weight": 0}
            for entry in index.placed(ref):
                # A tensor sits in many snapshots: place each (address, size, regions) once.
                spot = (entry.address, entry.size, region_id)
                placement = placements.get(spot)
                if placement is None:
                    placement = placements[spot] = (
                        place(entry.address, entry.size, regions, index.l2_size)
                        if ring
                        else linear(entry.address, entry.size, index.l2_size)
                    )
                key = (entry.tensor_id, entry.type, entry.address, entry.size)
                life = lives.see(
                    key, ref.position, w.workload_id, partial(_tensor_row, core_id, entry, placement)
                )
                by_type[entry.type] += entry.size
                for segment in placement.segments:
                    segments.append(segment)
                    owners.append(life)
            used, largest, overlapping = covered(segments, 0, buffersize)
            for i in overlapping:
                owners[i].overlaps = True
            if regions == [(0, buffersize)]:
                per_region = [(0, buffersize, used, largest)]
            else:
                per_region = [(lo, hi, *covered(segments, lo, hi)[:2]) for lo, hi in regions]
            if per_region:
                # A tensor lives inside one ring region, so a gap across a region boundary is two gaps.
                largest = max(r[3] for r in per_region)
            total = sum(by_type.values())
            free = buffersize - used
            key_cols = _snapshot_key(ref)
            occupancy.append(
                {
                    **key_cols,
                    "tensors": len(w.buffer),
                    **{f"{t}_bytes": b for t, b in by_type.items()},
                    "total_bytes": total,
                    "used_bytes": used,
                    "free_bytes": free,
                    "fraction": total / buffersize if buffersize else float("nan"),
                    "largest_free_block": largest,
                    "fragmentation": 1 - largest / free if free > 0 else 0.0,
                    "incomplete": ref.pointer in index.incomplete,
                }
            )
            for lo, hi, r_used, r_largest in per_region:
                regions_rows.append(
                    {
                        **key_cols,
                        "region_start": lo,
                        "region_end": hi,
                        "used_bytes": r_used,
                        "free_bytes": hi - lo - r_used,
                        "fraction": r_used / (hi - lo) if hi > lo else float("nan"),
                        "largest_free_block": r_largest,
                    }
                )
        tensors.extend(lives.rows())
    return {
        "tensors": TENSORS.frame(_columns(tensors, TENSORS.dtypes)),
        "l2_occupancy": L2_OCCUPANCY.frame(_columns(occupancy, L2_OCCUPANCY.dtypes)),
        "l2_regions": L2_REGIONS.frame(_columns(regions_rows, L2_REGIONS.dtypes)),
    }


@fast_path(reference=_l2_tables_reference)
def l2_tables(index: IRIndex) -> dict[str, pd.DataFrame]:
    """tensors, l2_occupancy and l2_regions for every core.

    A file without ring regions (the allocated dialect), or with one spanning the whole buffer in
    every workload (the documented files), gets them from columns (l2_columnar); the others, and any
    whose values leave int64, snapshot by snapshot."""
    ring = index.has(Capability.RING_REGIONS)
    info = tensor_columns(index).field("ring_buffer_info")
    if not ring and not any(info):
        tables = columnar_tables(index, False, _described)
    elif ring and index.l2_size and all(_whole_buffer(r, index.l2_size) for r in info):
        tables = columnar_tables(index, True, _described)
    else:
        tables = None
    return _l2_tables_reference(index) if tables is None else tables


def _whole_buffer(ring_buffer_info: list[list[int]], l2_size: int) -> bool:
    """Whether `regions_of` reads these pairs as the one region [0, l2_size)."""
    return not ring_buffer_info or (
        len(ring_buffer_info) == 1 and ring_buffer_info[0][0] == 0 and ring_buffer_info[0][1] == l2_size
    )


def _described(entries: list[PlacedEntry]) -> dict[str, list[Any]]:
    """The columns of `_tensor_row` read from the entries themselves, for many entries at once."""
    documented = {kind: is_model(e, BufferEntry) for kind, e in {type(e): e for e in entries}.items()}
    # Hundreds of thousands of entries on a 64-core file: read by C-level maps where no call is needed.
    to_dram = (
        [documented[type(e)] and bool(cast("BufferEntry", e).start_send) for e in entries]
        if any(documented.values())
        else [False] * len(entries)  # start_send is the documented dialect's alone
    )
    return {
        "layer_name": list(map(attrgetter("layer_name"), entries)),
        "transfer_ids": list(map(_ids, map(attrgetter("transfer_id"), entries))),
        "source": list(map(_source_kind, entries)),
        "to_dram": to_dram,
    }


def _tensor_row(core_id: int, entry: PlacedEntry, placement: Placement) -> dict[str, Any]:
    region = placement.region
    return {
        "core_id": core_id,
        "tensor_id": entry.tensor_id,
        "type": entry.type,
        "layer_name": entry.layer_name,
        "transfer_ids": _ids(entry.transfer_id),
        "address": entry.address,
        "size": entry.size,
        "segments": ";".join(f"{a}-{b}" for a, b in placement.segments),
        "wraps": placement.wraps,
        "region_start": region[0] if region else None,
        "region_end": region[1] if region else None,
        "source": _source_kind(entry),
        # A documented-only flag, on the model or the decoder's Struct of it (irtools.loading.fast_types).
        "to_dram": is_model(entry, BufferEntry) and bool(cast("BufferEntry", entry).start_send),
        "problem": placement.problem,
    }


def _wl0_tables_reference(index: IRIndex, wl0_size: int | None = None) -> dict[str, pd.DataFrame]:
    """`wl0_tables` snapshot by snapshot."""
    weights: list[dict[str, Any]] = []
    occupancy: list[dict[str, Any]] = []
    for core_id, refs in index.cores.items():
        lives = _Lifetimes()
        for ref in refs:
            entries = ref.workload.wl0_entries
            segments: list[Segment] = []
            owners: list[_Lifetime] = []
            for entry in entries:
                key = (entry.address, entry.size, tuple(entry.transfer_id), entry.layer_name)
                life = lives.see(
                    key, ref.position, ref.workload.workload_id, partial(_wl0_row, core_id, entry)
                )
                segments.append((entry.address, entry.address + entry.size))
                owners.append(life)
            extent = max((b for _, b in segments), default=0)
            used, largest, overlapping = covered(segments, 0, wl0_size or extent)
            for i in overlapping:
                owners[i].overlaps = True
            occupancy.append(
                {
                    **_snapshot_key(ref),
                    "weights": len(entries),
                    "total_bytes": sum(e.size for e in entries),
                    "extent": extent,
                    "free_bytes": wl0_size - used if wl0_size else None,
                    "largest_free_block": largest if wl0_size else None,
                }
            )
        weights.extend(lives.rows())
    return {
        "wl0_tensors": WL0_TENSORS.frame(_columns(weights, WL0_TENSORS.dtypes)),
        "wl0_occupancy": WL0_OCCUPANCY.frame(_columns(occupancy, WL0_OCCUPANCY.dtypes)),
    }


@fast_path(reference=_wl0_tables_reference)
def wl0_tables(index: IRIndex, wl0_size: int | None = None) -> dict[str, pd.DataFrame]:
    """wl0_tensors and wl0_occupancy; free space only when the WL0 size is known.

    A file without a single WL0 entry (the raw and allocated dialects) gets its empty snapshots in
    one go; the others come from columns (wl0_columnar), or snapshot by snapshot when a value leaves
    int64."""
    if len(tensor_columns(index).wl0):
        tables = wl0_columnar(index, wl0_size, _wl0_described)
        return _wl0_tables_reference(index, wl0_size) if tables is None else tables
    rows = len(index.rows)
    free = [wl0_size or None] * rows  # an empty WL0 is free from end to end
    occupancy = {**workload_identity(index), "weights": [0] * rows, "total_bytes": [0] * rows}
    occupancy |= {"extent": [0] * rows, "free_bytes": free, "largest_free_block": free}
    return {"wl0_tensors": WL0_TENSORS.empty(), "wl0_occupancy": WL0_OCCUPANCY.frame(occupancy)}


def _wl0_described(entries: list[Wl0Entry]) -> dict[str, list[Any]]:
    """The columns of `_wl0_row` read from the entries themselves, for many entries at once."""
    return {
        "layer_name": list(map(attrgetter("layer_name"), entries)),
        "transfer_ids": list(map(_ids, map(attrgetter("transfer_id"), entries))),
        "source": list(map(attrgetter("source"), entries)),
    }


def _wl0_row(core_id: int, entry: Wl0Entry) -> dict[str, Any]:
    return {
        "core_id": core_id,
        "layer_name": entry.layer_name,
        "transfer_ids": _ids(entry.transfer_id),
        "address": entry.address,
        "size": entry.size,
        "source": entry.source,
    }


def _columns(rows: list[dict[str, Any]], names: Iterable[str]) -> dict[str, list[Any]]:
    """Row dicts to column lists (column-wise construction is what pandas builds fastest)."""
    columns: dict[str, list[Any]] = defaultdict(list)
    for name in names:
        columns[name] = [row[name] for row in rows]
    return columns
