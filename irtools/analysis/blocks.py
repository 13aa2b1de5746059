"""L2 held in 1 KiB blocks per snapshot (what the raw dialect records), and cores' mesh positions in tables."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from irtools.analysis.identity import workload_identity
from irtools.analysis.tables import L2_BLOCKS, POSITION_COLUMNS
from irtools.dialects.base import Capability
from irtools.loading.boxes import Bools, Ints, tensor_columns
from irtools.loading.index import IRIndex
from irtools.reference import fast_path

KIB = 1024


def l2_capacity_kib(index: IRIndex) -> int | None:
    """The file's L2 size in KiB (`IRIndex.l2_size`: its buffersize, else --l2-size); None when unknown."""
    size = index.l2_size
    return size // KIB if size else None


def _l2_blocks_reference(index: IRIndex) -> pd.DataFrame:
    """`l2_blocks_table` entry by entry."""
    capacity = l2_capacity_kib(index)
    blocks = index.has(Capability.BLOCK_COUNTS)
    rows: dict[str, list[Any]] = {c.name: [] for c in L2_BLOCKS.columns}
    for core_id, refs in index.cores.items():
        for ref in refs:
            held = {"ifmap": 0, "weight": 0, "ofmap": 0}
            if blocks:
                entries = index.raw(ref).buffer
                for b in entries:
                    held[b.type] += b.block
                count = len(entries)
            else:
                placed = index.placed(ref)
                for e in placed:
                    held[e.type] += -(-e.size // KIB)
                count = len(placed)
            total = sum(held.values())
            for name, value in (
                ("core_id", core_id),
                ("position", ref.position),
                ("workload_id", ref.workload_id),
                ("layer_name", ref.workload.layer_name),
                ("tensors", count),
                ("ifmap_kib", held["ifmap"]),
                ("weight_kib", held["weight"]),
                ("ofmap_kib", held["ofmap"]),
                ("held_kib", total),
                ("l2_kib", capacity),
                ("fraction", total / capacity if capacity else float("nan")),
            ):
                rows[name].append(value)
    return L2_BLOCKS.frame(rows)


@fast_path(reference=_l2_blocks_reference)
def l2_blocks_table(index: IRIndex) -> pd.DataFrame:
    """One row per L2 snapshot: KiB held by type (raw `block` counts, else sizes rounded up to KiB),
    summed from the buffer entries' columns."""
    buffers = tensor_columns(index).buffers
    if index.has(Capability.BLOCK_COUNTS):
        block = buffers.ints("block")
    elif index.has(Capability.L2_ADDRESSES):
        size = buffers.ints("size")
        block = None if size is None else -(-size // KIB)  # rounded up, as the reference rounds
    else:
        return _l2_blocks_reference(index)
    kinds = {kind: buffers.equals("type", kind) for kind in _KINDS}
    if block is None or int(block.max(initial=0)) * max(len(block), 1) >= 2**63 or block.min(initial=0) < 0:
        return _l2_blocks_reference(index)  # a count or a sum beyond int64 (the frame reports it), or below 0
    if not np.logical_or.reduce(list(kinds.values())).all():
        return _l2_blocks_reference(index)  # a type the table has no column for
    return _l2_blocks_columns(index, buffers.row, block, kinds)


def _l2_blocks_columns(index: IRIndex, row: Ints, block: Ints, kinds: dict[str, Bools]) -> pd.DataFrame:
    rows = len(index.rows)
    held = {}
    for kind, of_kind in kinds.items():
        held[kind] = np.zeros(rows, dtype=np.int64)
        np.add.at(held[kind], row[of_kind], block[of_kind])
    total = held["ifmap"] + held["weight"] + held["ofmap"]
    capacity = l2_capacity_kib(index)
    return L2_BLOCKS.frame(
        {
            **workload_identity(index),
            "tensors": np.bincount(row, minlength=rows),
            "ifmap_kib": held["ifmap"],
            "weight_kib": held["weight"],
            "ofmap_kib": held["ofmap"],
            "held_kib": total,
            "l2_kib": [capacity] * rows,
            "fraction": total / capacity if capacity else np.full(rows, np.nan),
        }
    )


_KINDS = ("ifmap", "weight", "ofmap")
"""The entry types `l2_blocks` has a column for."""


def _add_positions_reference(frame: pd.DataFrame, index: IRIndex) -> pd.DataFrame:
    if not any(name in frame.columns for name in POSITION_COLUMNS) or "core_x" in frame.columns:
        return frame  # nothing to place, or placed already
    positions = {core_id: index.core_position(core_id) for core_id in index.cores}
    out = frame.copy()
    for name, (x_name, y_name) in POSITION_COLUMNS.items():
        if name not in out.columns:
            continue
        ids = out[name]
        xs = [_axis(positions, core, 0) for core in ids]
        ys = [_axis(positions, core, 1) for core in ids]
        at = out.columns.get_loc(name) + 1
        out.insert(at, x_name, pd.Series(xs, index=out.index, dtype="Int64"))
        out.insert(at + 1, y_name, pd.Series(ys, index=out.index, dtype="Int64"))
    return out


@fast_path(reference=_add_positions_reference)
def add_positions(frame: pd.DataFrame, index: IRIndex) -> pd.DataFrame:
    """`frame` with the mesh position (x, y) after each column naming a core (see POSITION_COLUMNS)."""
    if not any(name in frame.columns for name in POSITION_COLUMNS) or "core_x" in frame.columns:
        return frame  # nothing to place, or placed already
    placed = {core_id: index.core_position(core_id) for core_id in index.cores}
    axes = [{c: p[axis] for c, p in placed.items() if p is not None} for axis in (0, 1)]
    # Copy-on-write (pandas >= 3): the columns stay shared with `frame` (kept by Analysis), and neither
    # frame sees a change made to the other; a deep copy held every table twice in `irtools analyze`.
    out = frame.copy(deep=False)
    for name, (x_name, y_name) in POSITION_COLUMNS.items():
        if name not in out.columns:
            continue
        ids = out[name]
        at = out.columns.get_loc(name) + 1
        # A hashed lookup per column (a core that is missing, NA or off the mesh gets NA), not a call per row.
        out.insert(at, x_name, ids.map(axes[0]).astype("Int64"))
        out.insert(at + 1, y_name, ids.map(axes[1]).astype("Int64"))
    return out


def _axis(positions: dict[int, tuple[int, int] | None], core: Any, axis: int) -> int | None:
    if core is None or pd.isna(core):
        return None
    pos = positions.get(int(core))
    return None if pos is None else pos[axis]
