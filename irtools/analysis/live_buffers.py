"""XProf's memory-viewer question for any core and time range: which buffers are live at the L2 peak.

The peak is the core's largest L2 snapshot (held bytes: the snapshot's sizes, or a raw file's 1 KiB
blocks) among the workloads running in the range; its buffers are that snapshot's entries, with their
kind, layer and size, largest first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irtools.analysis.blocks import KIB
from irtools.dialects.base import Capability
from irtools.loading.index import IRIndex


@dataclass(frozen=True, slots=True)
class LivePeak:
    """The L2 snapshot where a core holds the most bytes, and the buffers live there."""

    core_id: int
    position: int
    workload_id: int
    layer_name: str
    held_bytes: int
    buffers: pd.DataFrame
    """type, layer_name, bytes: the snapshot's entries, largest first."""


ENTRY_COLUMNS = ("core_id", "position", "type", "layer_name", "bytes")
"""The columns of `l2_entries`."""


def l2_entries(index: IRIndex) -> pd.DataFrame:
    """Every L2 snapshot's entries in file order: core_id, position (the snapshot's workload), type,
    layer_name ("" for none) and bytes (a raw file's whole 1 KiB blocks, else the entry's size).

    What `live_at_peak` reads of the snapshots, so a view keeps asking it once the snapshots are dropped
    (irtools.analysis.snapshots builds it a few cores at a time as the dashboard reads a file)."""
    rows = index.rows
    entries = [
        (ref.core_id, ref.position, e) for ref in rows for e in getattr(ref.workload, "buffer", None) or ()
    ]
    # A raw file holds whole 1 KiB blocks (its held_bytes count them); the others give byte sizes.
    placed = index.has(Capability.L2_ADDRESSES)
    return pd.DataFrame(
        {
            "core_id": np.fromiter((c for c, _, _ in entries), np.int64, len(entries)),
            "position": np.fromiter((p for _, p, _ in entries), np.int64, len(entries)),
            "type": pd.array([e.type for _, _, e in entries], dtype="str"),
            "layer_name": pd.array([e.layer_name or "" for _, _, e in entries], dtype="str"),
            "bytes": np.fromiter(
                (int(e.size or 0) if placed else int(getattr(e, "block", 0)) * KIB for _, _, e in entries),
                np.int64,
                len(entries),
            ),
        },
        columns=list(ENTRY_COLUMNS),
    )


def live_at_peak(
    index: IRIndex,
    entries: pd.DataFrame,
    held: pd.DataFrame,
    core_id: int,
    positions: set[int] | None = None,
) -> LivePeak | None:
    """The buffers of core `core_id`'s largest L2 snapshot, among `positions` (None: all); None without one.

    `entries` are the snapshots' entries (`l2_entries`); `held` has core_id, position, held_bytes per
    snapshot (irtools.analysis.tiles.held_bytes).
    """
    mine = held[held["core_id"] == core_id]
    if positions is not None:
        mine = mine[mine["position"].isin(positions)]
    if mine.empty:
        return None
    peak = mine.loc[mine["held_bytes"].idxmax()]
    position = int(peak["position"])
    workload = index.cores[core_id][position].workload
    live = entries[(entries["core_id"] == core_id) & (entries["position"] == position)]
    buffers = live[["type", "layer_name", "bytes"]].sort_values(
        ["bytes", "type"], ascending=[False, True], kind="stable"
    )
    return LivePeak(
        core_id,
        position,
        workload.workload_id,
        workload.layer_name,
        int(peak["held_bytes"]),
        buffers.reset_index(drop=True),
    )
