"""The per-layer rollup: a group-by over the timeline, DRAM traffic and L2 occupancy tables."""

from __future__ import annotations

import pandas as pd

from irtools.analysis.tables import LAYERS


def layers_table(
    rows: pd.DataFrame,
    traffic: pd.DataFrame,
    l2_occupancy: pd.DataFrame,
    buffersize: int | None,
    noc: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per layer, ordered by first start under the dependency model, from its rows of the
    timeline (irtools.analysis.schedule_tables.layer_rows: the columns the rollup reads).

    `noc` (irtools.analysis.noc.layer_bounds, with a NoC bandwidth) fills noc_added, bound and noc_link.
    """
    keys = ["core_id", "position"]
    merged = rows.merge(traffic.drop(columns=["workload_id", "layer_name"]), on=keys, how="left").merge(
        l2_occupancy[[*keys, "total_bytes"]].rename(columns={"total_bytes": "l2_bytes"}), on=keys
    )
    if merged.empty:
        return LAYERS.empty()
    grouped = merged.groupby("layer_name", sort=False)
    table = pd.DataFrame(
        {
            "layer_type": grouped["layer_type"].first(),
            "workloads": grouped.size(),
            "cores": grouped["core_id"].nunique(),
            "core_ids": grouped["core_id"].agg(lambda s: ";".join(map(str, sorted(set(s))))),
            "total_time": grouped["time"].sum(),
            "start": grouped["start"].min(),
            "end": grouped["end"].max(),
            "read_weight_bytes": grouped["read_weight_bytes"].sum(),
            "read_fmap_bytes": grouped["read_fmap_bytes"].sum(),
            "write_bytes": grouped["write_bytes"].sum(),
            "peak_l2_bytes": grouped["l2_bytes"].max(),
        }
    ).reset_index()
    table["peak_l2_fraction"] = table["peak_l2_bytes"] / buffersize if buffersize else float("nan")
    columns = ["noc_added", "bound", "noc_link"]
    table = table.join(noc if noc is not None else pd.DataFrame(columns=columns), on="layer_name")
    # Layers that cannot be scheduled go last, in file order (the sort is stable).
    table = table.sort_values("start", kind="stable", na_position="last").reset_index(drop=True)
    return LAYERS.frame({c.name: table[c.name] for c in LAYERS.columns})
