"""The tables read from the L2 and WL0 snapshots, built a few cores at a time as `irtools analyze` reads
the file, their snapshots then dropped, and with them the tensors the other tables read as columns.

The snapshots (`buffer`, `wl0_buffer`/`wl1_buffer`) and the tiles are most of a loaded file: three
quarters of a Gemini file's bytes are its `buffer` entries. Only these six tables read them; the others
come from the workloads' tensors, ranges and the transfer columns. Each of the six is the union of its
rows on each core alone (a snapshot belongs to one workload, a tensor's lifetime to one core), measured
against the file's L2 size or the user's; a file with neither is measured against its extent over every
core, which its l2_occupancy is finished with once the last core is read. So the batches' tables joined
in the index's core order are the whole file's (tests/analysis/test_snapshot_tables.py compares them on
every fixture, sample and fuzzed file).

What is left of a workload is then mostly its tensors and range. When the run routes no NoC traffic,
the other tables read them only through the transfer columns and the ofmaps' sizes
(irtools.loading.columns): those are kept per core, as validate keeps them (irtools.streaming), given
to the whole file's index, and the tensors dropped too. A table that would still read a dropped field
raises FieldDropped, and `irtools analyze` then reads the file again whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from irtools.analysis.blocks import l2_blocks_table
from irtools.analysis.buffers import l2_tables, wl0_tables
from irtools.analysis.l2_columnar import occupancy_at_size, snapshot_reach
from irtools.analysis.live_buffers import l2_entries
from irtools.analysis.tables import L2_OCCUPANCY, L2_REGIONS, TABLES, TENSORS, TableSpec
from irtools.dialects.base import Capability
from irtools.loading.columns import (
    Ints,
    WorkloadTransfers,
    int32_where_fits,
    joined,
    known_transfers,
    ofmap_sizes,
)
from irtools.loading.dropping import SNAPSHOT_FIELDS, TENSOR_FIELDS, drop_fields
from irtools.loading.index import IRIndex
from irtools.loading.sharing import share_values
from irtools.loading.waits import wait_edges
from irtools.options import RunOptions

if TYPE_CHECKING:
    from irtools.loading.load import LoadedIR
    from irtools.model.view import PartialIR

SNAPSHOT_TABLES = ("tensors", "l2_occupancy", "l2_regions", "l2_blocks", "wl0_tensors", "wl0_occupancy")
"""The tables that read the snapshots."""


def l2_part(index: IRIndex) -> dict[str, pd.DataFrame]:
    """tensors, l2_occupancy and l2_regions; empty for a file without L2 addresses (whose occupancy is
    l2_blocks)."""
    if not index.has(Capability.L2_ADDRESSES):
        return {
            "tensors": TENSORS.empty(),
            "l2_occupancy": L2_OCCUPANCY.empty(),
            "l2_regions": L2_REGIONS.empty(),
        }
    return l2_tables(index)


def snapshot_tables(index: IRIndex, options: RunOptions) -> dict[str, pd.DataFrame]:
    """The six tables of `index`'s IR, before `add_positions` (Analysis.table adds them)."""
    return {**l2_part(index), "l2_blocks": l2_blocks_table(index), **wl0_tables(index, options.wl0_size)}


BATCH_ROWS = 2048
"""Workloads whose snapshot tables are built at once: the tables' cost per call (a DataFrame per table and
column) is paid a few times per file rather than once per core, while a small part of the file's
snapshots is held. Since the tensors are dropped too, a batch's moment is most of what the load leaves
behind: whole `irtools analyze` processes peaked at 244/279/262/188 MiB (raw, allocated, documented
stand-ins, real 61 MB file) with 2048, 259/291/286/201 with 4096, 244/275/254/181 with 1024, whose
CPU was up to 1 s more."""


def drop_snapshots(core: LoadedIR) -> None:
    """The hook `load_ir(on_core=...)` calls with each core when no snapshot table is wanted: the core's
    snapshots dropped unread, its other values shared (the loader shares no value of a core it hands over)."""
    if core.ir is None:
        return
    workloads = [w for ws in core.ir.cores.values() for w in ws]
    drop_fields(workloads, SNAPSHOT_FIELDS)
    share_values(workloads)


@dataclass(slots=True)
class CoreTables:
    """The hook `load_ir(on_core=...)` calls with each core: the cores' snapshot tables built a batch of
    cores at a time (`BATCH_ROWS`), then their snapshots dropped and their other values shared (the loader
    shares no value of a core it hands over)."""

    options: RunOptions
    for_views: bool = False
    """Keep what the dashboard's views read once the snapshots are gone: the tiles (a measured trace is
    matched to them) and each snapshot's entries (`l2_entries`, for live_at_peak)."""
    parts: list[_Batch] = field(default_factory=list)
    columns: dict[int, tuple[WorkloadTransfers, Ints]] = field(default_factory=dict)
    """Core id -> its part of the transfer columns and its ofmaps' sizes, narrowed, when its tensors are
    dropped too (`drops_tensors`)."""
    failed: bool = False
    """Some batch's tables raised, or cannot be built from its cores alone (ring regions and no L2 size,
    or an address the columns cannot take in a file sized by its extent): no later core is dropped, and
    the file (read again when some core was dropped) is analyzed whole, its errors the whole file's, as
    they were."""
    dropped: bool = False
    """Some core's snapshots were dropped."""
    _batch: list[LoadedIR] = field(default_factory=list)
    _rows: int = 0

    def __call__(self, core: LoadedIR) -> None:
        """Take `core` into the batch; build the batch's tables once it holds BATCH_ROWS workloads."""
        if self.failed:
            _share(core)
            return
        self._batch.append(core)
        self._rows += sum(map(len, core.ir.cores.values())) if core.ir is not None else 0
        if self._rows >= BATCH_ROWS:
            self._flush()

    def _flush(self) -> None:
        batch, self._batch, self._rows = self._batch, [], 0
        if self.failed or not batch:
            return
        together = _together(batch)
        index = IRIndex(together, self.options)
        reach = None
        if index.has(Capability.L2_ADDRESSES) and index.l2_size is None:
            # Sized by the file's extent: l2_occupancy is finished once the last core is read (`joined`).
            reach = None if index.has(Capability.RING_REGIONS) else snapshot_reach(index)
            if reach is None:
                self.failed = True
                _share(together)
                return
        try:
            tables = snapshot_tables(index, self.options)
        except Exception:  # noqa: BLE001 - the whole file's analysis raises it again, where it did
            self.failed = True
            _share(together)
            return
        if self.drops_tensors:
            try:
                self.columns.update(self._core_columns(index))
            except OverflowError:  # a value beyond int64: the whole file's tables take it from the objects
                self.failed = True
                _share(together)
                return
        if self.for_views:
            tables["l2_entries"] = l2_entries(index)
        self.parts.append(_Batch(list(index.cores), tables, reach))
        workloads = [ref.workload for ref in index.rows]
        drop_fields(workloads, self._dropped_fields)
        share_values(workloads)
        self.dropped = True

    @property
    def drops_tensors(self) -> bool:
        """Whether the cores' tensors go too: not when the run routes them for the NoC model's timing or
        noc_links (the layer steps' batch groups walk them); the dashboard's mesh routes from the columns."""
        return not self.options.routes_noc

    @property
    def _dropped_fields(self) -> tuple[str, ...]:
        snapshots = (
            tuple(f for f in SNAPSHOT_FIELDS if f != "tile_info") if self.for_views else SNAPSHOT_FIELDS
        )
        return (*snapshots, *TENSOR_FIELDS) if self.drops_tensors else snapshots

    @staticmethod
    def _core_columns(index: IRIndex) -> Iterator[tuple[int, tuple[WorkloadTransfers, Ints]]]:
        """Each core's part of the batch's transfer columns and its ofmaps' sizes, narrowed (built on the
        batch's index, whose objects its snapshot tables have gathered already). Raises OverflowError
        when a value is not an int64."""
        sizes = ofmap_sizes(index)
        if sizes is None:
            raise OverflowError("an ofmap's size is not an int64")
        parts = WorkloadTransfers.build(index).split([len(refs) for refs in index.cores.values()])
        ends = np.cumsum([len(part.ofmap_tid) for part in parts]).tolist()  # sizes go with the ofmaps
        for core_id, part, first, last in zip(index.cores, parts, [0, *ends[:-1]], ends, strict=True):
            yield core_id, (part.narrowed(), int32_where_fits(sizes[first:last]))

    def joined(self, index: IRIndex) -> dict[str, pd.DataFrame] | None:
        """The whole file's six tables from its batches' (the last built now), their rows in the index's
        core order, and the index given its transfer columns and ofmap sizes when the tensors were dropped;
        None when a core has none (its batch failed, or it was not handed over), or when the dropped
        tensors are still needed: the wait graph's edges cannot be found from the columns (ids too large
        to combine, negative ones), and the timing models would walk the tensors instead."""
        self._flush()
        handed = [core_id for batch in self.parts for core_id in batch.core_ids]
        if self.failed or len(handed) != len(index.cores) or set(handed) != set(index.cores):
            return None
        parts, self.parts = self.parts, []
        extent = max((batch.reach[0] for batch in parts if batch.reach is not None), default=None)
        for batch in parts:
            if batch.reach is not None and extent is not None:
                occupancy = batch.tables["l2_occupancy"]
                if len(occupancy) != len(batch.reach[1]):
                    return None  # not one row per snapshot: the whole file's tables say why
                batch.tables["l2_occupancy"] = occupancy_at_size(occupancy, batch.reach[1], extent)
        rank = {core_id: at for at, core_id in enumerate(index.cores)}
        if self.drops_tensors:
            columns = [self.columns.pop(core_id) for core_id in index.cores]
            # In int32 where they fit (held to analyze's end): a run that drops the tensors routes no NoC
            # traffic, and the other tables' readers work in int32 (their composite keys in int64).
            known_transfers(index, [transfers for transfers, _ in columns], narrow=True)
            ofmap_sizes.known(index, joined([sizes for _, sizes in columns]))
            del columns
            if wait_edges(index) is None:
                return None  # ids the columns cannot combine: the timing models walk the dropped tensors
        tables = {
            name: _joined(TABLES[name], [b.tables.pop(name) for b in parts], rank) for name in SNAPSHOT_TABLES
        }
        if self.for_views:  # the rows of one snapshot together, in their order: all live_at_peak needs
            entries = [b.tables.pop("l2_entries") for b in parts]
            tables["l2_entries"] = pd.concat(entries, ignore_index=True) if entries else l2_entries(index)
        return tables


@dataclass(slots=True)
class _Batch:
    core_ids: list[int]
    tables: dict[str, pd.DataFrame]
    reach: tuple[int, Ints] | None
    """For a file sized by its extent: the batch's extent and where each snapshot's entries reach
    (l2_columnar.snapshot_reach), to measure its l2_occupancy against the whole file's extent."""


def _share(core: LoadedIR) -> None:
    """Share the values of `core`'s workloads, as the loader does for a hook that keeps none."""
    if core.ir is not None:
        share_values([w for workloads in core.ir.cores.values() for w in workloads])


def _together(batch: list[LoadedIR]) -> LoadedIR:
    """The cores of `batch` (each handed alone) as one file: the first's DRAM section and numbers."""
    first = batch[0]
    cores = {
        key: workloads for core in batch if core.ir is not None for key, workloads in core.ir.cores.items()
    }
    return dataclasses.replace(
        first,
        ir=dataclasses.replace(cast("PartialIR", first.ir), cores=cast("dict[str, list[Any]]", cores)),
        skipped=[pointer for core in batch for pointer in core.skipped],
    )


def _joined(spec: TableSpec, frames: list[pd.DataFrame], rank: dict[int, int]) -> pd.DataFrame:
    """The batches' frames (each with the spec's dtypes, without the columns `add_positions` adds) as one,
    its rows in the index's core order (a file's cores come in the order its keys are written: "1", "10",
    "2" in Gemini's files), each core's rows in their order. Joined a column at a time, each let go from
    the batches' as it is joined (`frames` is emptied): the batches' tables and the whole file's are never
    all held twice (the allocated stand-in's 88k tensors, 15 MiB, were three times held at the load's end)."""
    held = [f for f in frames if len(f)] or frames[:1]
    if not held:
        return spec.empty()  # no core: the whole file's tables are these too
    ranks = [f["core_id"].map(rank).to_numpy() for f in held]
    order = (np.concatenate(ranks) if len(ranks) > 1 else ranks[0]).argsort(kind="stable")
    names = list(held[0].columns)
    batches = [dict(f.items()) for f in held]  # each column its own block (TableSpec.frame): a Series each
    del held, ranks
    frames.clear()
    columns = {}
    for name in names:
        parts = [batch.pop(name) for batch in batches]
        column = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        del parts
        columns[name] = column.take(order).reset_index(drop=True)
    return pd.DataFrame(columns, copy=False)
