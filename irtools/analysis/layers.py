"""The per-layer rollup: a group-by over the timeline, DRAM traffic and L2 occupancy tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from irtools.analysis.tables import LAYERS


def layers_table(
    timeline: pd.DataFrame, traffic: pd.DataFrame, l2_occupancy: pd.DataFrame, buffersize: int | None
) -> pd.DataFrame:
    """One row per layer, ordered by first start under the dependency model."""
    dep = timeline[timeline["model"] == "dependency"]
    keys = ["core_id", "position"]
    merged = dep.merge(traffic.drop(columns=["workload_id", "layer_name"]), on=keys, how="left").merge(
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
    table = table.join(_noc_bounds(timeline), on="layer_name")
    # Layers that cannot be scheduled go last, in file order (the sort is stable).
    table = table.sort_values("start", kind="stable", na_position="last").reset_index(drop=True)
    return LAYERS.frame({c.name: table[c.name] for c in LAYERS.columns})


def _noc_bounds(timeline: pd.DataFrame) -> pd.DataFrame:
    """Per layer from the noc rows: noc_added, bound, noc_link (empty columns without a noc model)."""
    noc = timeline[timeline["model"] == "noc"]
    columns = ["noc_added", "bound", "noc_link"]
    if noc.empty:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="layer_name"))
    # A step's workloads share one NoC time and link: the step adds its NoC time over its longest workload.
    steps = (
        noc.groupby(["layer_name", "noc_time", "noc_link"], sort=False, dropna=False)["time"]
        .max()
        .reset_index()
    )
    steps["added"] = np.maximum(steps["noc_time"].astype("int64") - steps["time"], 0)
    slowest = steps.sort_values("added", ascending=False, kind="stable").drop_duplicates("layer_name")
    out = steps.groupby("layer_name", sort=False)["added"].sum().to_frame("noc_added")
    out["bound"] = np.where(out["noc_added"] > 0, "NoC", "compute")
    out["noc_link"] = slowest.set_index("layer_name")["noc_link"]
    return out
