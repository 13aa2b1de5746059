"""The chip at a glance: one row per core tile of the mesh, its metrics over the schedule or a cycles window.

Busy and waiting are cut to the window exactly; the bytes a workload moves (DRAM) are spread evenly
over its run, and core-to-core bytes over their layer step's span (`link_load`), so a window holds
them pro rata of the overlap, as the link loads do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irtools.analysis.blocks import KIB
from irtools.analysis.core_time import placed_rows, split_times, window_length
from irtools.analysis.link_load import LinkLoads, Window, in_window
from irtools.loading.index import IRIndex

METRICS = {
    "busy": "busy share (compute)",
    "stalled": "NoC-stalled share",
    "waiting": "waiting share",
    "l2": "peak L2",
    "dram": "DRAM bytes",
    "sent": "bytes sent to cores",
    "received": "bytes received from cores",
}
"""Tile metrics the user can colour the mesh by: key -> what the colour bar says."""
TOP_LAYERS = 3


@dataclass(frozen=True, slots=True)
class MeshShape:
    """The mesh's size in cores: xlen columns by ylen rows."""

    xlen: int
    ylen: int


def mesh_shape(index: IRIndex) -> MeshShape | None:
    """The mesh when the file gives xlen/ylen and its two or more cores all have a position on it; else
    None (one core is no chip to look at)."""
    xlen, ylen = index.ir.xlen, index.ir.ylen
    if not xlen or not ylen or len(index.cores) < 2:
        return None
    if any(index.core_position(c) is None for c in index.cores):
        return None
    return MeshShape(xlen, ylen)


def tile_table(
    index: IRIndex,
    timeline: pd.DataFrame,
    model: str,
    *,
    held: pd.DataFrame,
    dram: pd.DataFrame,
    loads: LinkLoads | None,
    capacity: int | None,
    window: Window | None = None,
) -> pd.DataFrame:
    """One row per core: core_id, x, y, busy (compute), NoC-stalled and waiting share, peak L2 (bytes, share of `capacity`),
    DRAM bytes, bytes sent/received core to core, and its top layers by busy cycles, in `window`.

    `held` has core_id, position, held_bytes per L2 snapshot; `dram` the dram_transfers table.
    """
    times = placed_rows(timeline, model)
    start = times["start"].to_numpy(dtype=float, na_value=np.nan)
    end = times["end"].to_numpy(dtype=float, na_value=np.nan)
    length = window_length(times, window)
    # Under `noc` a workload runs its IR time, then waits on the NoC until its step's NoC time is over:
    # that stall is not compute, so it is its own share (irtools.analysis.core_time).
    share = in_window(start, end, window)
    work = split_times(times, window).assign(share=share)
    by_core = work.groupby("core_id")
    busy = by_core["run"].sum() / length
    stall = by_core["stalled"].sum() / length
    waiting = by_core["waited"].sum() / length
    key = pd.MultiIndex.from_arrays([times["core_id"].to_numpy(), times["position"].to_numpy()])
    weight = pd.Series(share, index=key)
    # Peak L2 among the snapshots of the workloads running in the window.
    snap = pd.MultiIndex.from_arrays([held["core_id"].to_numpy(), held["position"].to_numpy()])
    live = weight.reindex(snap).fillna(0).to_numpy() > 0
    peak = held[live].groupby("core_id")["held_bytes"].max()
    charged = dram[dram["core_id"].notna()]
    at = pd.MultiIndex.from_arrays(
        [charged["core_id"].astype("int64").to_numpy(), charged["position"].astype("int64").to_numpy()]
    )
    dram_bytes = (
        charged.assign(
            b=charged["bytes"].fillna(0).astype(float).to_numpy() * weight.reindex(at).fillna(0).to_numpy()
        )
        .groupby(charged["core_id"].astype("int64"))["b"]
        .sum()
    )
    sent, received = _core_bytes(loads, window)
    layers = (
        work[work["run"] > 0]
        .groupby(["core_id", "layer_name"], as_index=False)["run"]
        .sum()
        .sort_values(["core_id", "run", "layer_name"], ascending=[True, False, True])
    )
    top = layers.groupby("core_id").head(TOP_LAYERS)
    top_text = top.groupby("core_id").apply(
        lambda g: "; ".join(
            f"{n} ({r / length:.0%})" for n, r in zip(g["layer_name"], g["run"], strict=True)
        ),
        include_groups=False,
    )
    rows = []
    for core in index.cores:
        pos = index.core_position(core) or (None, None)
        p = peak.get(core)
        rows.append(
            {
                "core_id": core,
                "x": pos[0],
                "y": pos[1],
                "busy_share": float(busy.get(core, 0.0)),
                "noc_stall_share": float(stall.get(core, 0.0)),
                "waiting_share": float(waiting.get(core, 0.0)),
                "peak_l2_bytes": None if p is None else int(p),
                "l2_share": float(p) / capacity if p is not None and capacity else float("nan"),
                "dram_bytes": round(dram_bytes.get(core, 0.0)),
                "sent_bytes": round(sent.get(pos, 0.0)),
                "received_bytes": round(received.get(pos, 0.0)),
                "top_layers": str(top_text.get(core, "")),
            }
        )
    return pd.DataFrame(rows)


def _core_bytes(
    loads: LinkLoads | None, window: Window | None
) -> tuple[dict[object, float], dict[object, float]]:
    """(x, y) -> core-to-core bytes sent (each tree once) and received (per destination), in `window`."""
    if loads is None:
        return {}, {}
    core = loads.core
    # An ofmap a core keeps for its own next workload never enters the NoC.
    core = core[(core["src_x"] != core["dst_x"]) | (core["src_y"] != core["dst_y"])]
    if core.empty:
        return {}, {}
    weight = in_window(core["start"].to_numpy(float), core["end"].to_numpy(float), window)
    core = core.assign(share_bytes=core["bytes"].to_numpy(float) * weight)
    # A multicast leaves its source once: one tree per (transfer, step, source).
    trees = core.drop_duplicates(["transfer", "step", "src_x", "src_y"])
    sent = trees.groupby(["src_x", "src_y"])["share_bytes"].sum()
    received = core.groupby(["dst_x", "dst_y"])["share_bytes"].sum()
    return {(int(x), int(y)): v for (x, y), v in sent.items()}, {
        (int(x), int(y)): v for (x, y), v in received.items()
    }


def held_bytes(l2_blocks: pd.DataFrame, l2_occupancy: pd.DataFrame, raw: bool) -> pd.DataFrame:
    """core_id, position, held_bytes per L2 snapshot: raw blocks in KiB, else the snapshot's total bytes."""
    if raw:
        return pd.DataFrame(
            {
                "core_id": l2_blocks["core_id"],
                "position": l2_blocks["position"],
                "held_bytes": l2_blocks["held_kib"] * KIB,
            }
        )
    return pd.DataFrame(
        {
            "core_id": l2_occupancy["core_id"],
            "position": l2_occupancy["position"],
            "held_bytes": l2_occupancy["total_bytes"],
        }
    )
