"""XProf's memory-viewer question for any core and time range: which buffers are live at the L2 peak.

The peak is the core's largest L2 snapshot (held bytes: the snapshot's sizes, or a raw file's 1 KiB
blocks) among the workloads running in the range; its buffers are that snapshot's entries, with their
kind, layer and size, largest first.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def live_at_peak(
    index: IRIndex, held: pd.DataFrame, core_id: int, positions: set[int] | None = None
) -> LivePeak | None:
    """The buffers of core `core_id`'s largest L2 snapshot, among `positions` (None: all); None without one.

    `held` has core_id, position, held_bytes per snapshot (irtools.analysis.tiles.held_bytes).
    """
    mine = held[held["core_id"] == core_id]
    if positions is not None:
        mine = mine[mine["position"].isin(positions)]
    if mine.empty:
        return None
    peak = mine.loc[mine["held_bytes"].idxmax()]
    position = int(peak["position"])
    ref = index.cores[core_id][position]
    # A raw file holds whole 1 KiB blocks (its held_bytes count them); the others give byte sizes.
    placed = index.has(Capability.L2_ADDRESSES)
    rows = [
        {
            "type": e.type,
            "layer_name": e.layer_name or "",
            "bytes": int(e.size or 0) if placed else int(getattr(e, "block", 0)) * KIB,
        }
        for e in ref.workload.buffer
    ]
    buffers = pd.DataFrame(rows, columns=["type", "layer_name", "bytes"])
    buffers = buffers.sort_values(["bytes", "type"], ascending=[False, True], kind="stable").reset_index(
        drop=True
    )
    return LivePeak(
        core_id, position, ref.workload.workload_id, ref.workload.layer_name, int(peak["held_bytes"]), buffers
    )
