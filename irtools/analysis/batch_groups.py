"""Gemini's batch groups: a layer run once per batch group shares its DRAM weights over the groups.

Where a segment runs its layers in G batch groups (the printout's `S 4/4`: 4 samples, 4 groups),
Gemini charges each group's layer with 1/G of the layer's DRAM weight traffic: `noc /= (wgt_bgrp /
num_batch)` in `StdLayerEngine::calcNoC` (src/layerengine.cpp of SET-Scheduling-Project/GEMINI-HPCA2024)
divides the link loads, hops and DRAM bytes of the weights fetched so far (integer division), before the
ifmaps and ofmaps are added; `Cut::construct` (src/schnode.cpp) then multiplies the segment's traffic by
its number of groups. The IR lists a weight's DRAM read only for the first group's workloads (later
groups reuse it), so charging it to that step alone makes the first group NoC-bound where Gemini's are
not (darknet19 4x4, batch 4, NoC 8: +9.3% on `T`).

Here a layer's groups are its steps (the k-th workload of the layer on each core; `noc.workload_steps`),
and each step carries its own ifmap and ofmap traffic plus the layer's weight loads, per link, divided
by the number of steps. The IR does not say which batch groups Gemini formed: the number of steps
stands for `wgt_bgrp / num_batch`, which it equals on every shared run. Weights that a layer reads from
another layer's ofmap (`wgt_B`, e.g. attention) are core traffic, not DRAM weights, and are not spread,
as in Gemini.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irtools.loading.index import IRIndex

LINK_KEYS = ["x", "y", "direction", "to_x", "to_y"]

def weight_transfers(index: IRIndex) -> np.ndarray:
    """Transfer ids that some workload reads as its weight (sorted, unique)."""
    ids = [t for ref in index.workloads() if ref.workload.weight is not None for t in ref.workload.weight.transfer_id]
    return np.unique(np.array(ids, dtype=np.int64))


def layer_groups(steps: pd.DataFrame) -> pd.Series:
    """Per layer_name: its number of steps, the batch groups Gemini divides its weights by."""
    return steps.groupby("layer_name", sort=False)["step"].count()


def is_weight(links: pd.DataFrame, weights: np.ndarray) -> np.ndarray:
    """Rows of routed links (noc.noc_links) that carry a DRAM weight read."""
    weight: np.ndarray = ((links["kind"] == "dram_read") & links["transfer"].isin(weights)).to_numpy()
    return weight


def step_link_loads(links: pd.DataFrame, steps: pd.DataFrame, weights: np.ndarray) -> pd.DataFrame:
    """Bytes per (step, directed link), each layer's DRAM weight loads shared evenly by its steps.

    `links`: noc.noc_links rows; `steps`: step, layer_name (noc.workload_steps); `weights`: weight
    transfer ids. Per layer and link the weight bytes are summed, divided by the layer's number of steps
    (integer division, as Gemini's `HopCount::operator/=`) and put on every step of the layer. Columns:
    step, x, y, direction, to_x, to_y, bytes; aggregated before anything is copied (the routed rows of a
    large file number millions, their (step, link) sums thousands).
    """
    keys = ["step", *LINK_KEYS]
    loads = links.groupby(keys, sort=False)["bytes"].sum()
    weight = is_weight(links, weights)
    if not weight.any():
        return loads.reset_index()
    own = links.loc[weight, [*keys, "bytes"]].groupby(keys, sort=False)["bytes"].sum()
    layer_of = steps.set_index("step")["layer_name"]
    per_layer = (
        own.reset_index()
        .assign(layer_name=lambda f: layer_of.reindex(f["step"]).to_numpy())
        .groupby(["layer_name", *LINK_KEYS], sort=False)["bytes"]
        .sum()
        .reset_index()
    )
    per_layer["bytes"] = per_layer["bytes"] // per_layer["layer_name"].map(layer_groups(steps)).to_numpy()
    shared = per_layer.merge(steps[["step", "layer_name"]], on="layer_name").set_index(keys)["bytes"]
    total = pd.concat([loads, -own, shared]).groupby(level=keys, sort=False).sum()
    return total[total > 0].reset_index()


def step_traffic(links: pd.DataFrame, steps: pd.DataFrame, weights: np.ndarray, xlen: int) -> pd.DataFrame:
    """Per step, what Gemini counts for its batch group: `hops` (bytes x hops, its NoC_tot_hops) and
    `dram_bytes` (its DRAM acc), each layer's DRAM weights shared evenly by its steps (integer division
    of the layer's totals, as `NoC::operator/=`). One row per step of `steps`, in its order.

    A DRAM read leaves its port column (x = -1 or xlen) once per port, on its first link; a DRAM write
    enters the port column once, on its last horizontal link: those links' bytes are the DRAM bytes
    (Gemini's `bytes // 4` per channel, as routed).
    """
    weight = is_weight(links, weights)
    x, to_x = links["x"].to_numpy(), links["to_x"].to_numpy()
    kind = links["kind"].to_numpy()
    port = (x < 0) | (x >= xlen)
    to_port = (to_x < 0) | (to_x >= xlen)
    dram = ((kind == "dram_read") & port & ~to_port) | ((kind == "dram_write") & to_port & ~port)
    frame = pd.DataFrame(
        {
            "step": links["step"].to_numpy(),
            "weight": weight,
            "hops": links["bytes"].to_numpy(),
            "dram_bytes": np.where(dram, links["bytes"].to_numpy(), 0),
        }
    )
    sums = frame.groupby(["step", "weight"], sort=False)[["hops", "dram_bytes"]].sum().reset_index()
    own = sums[~sums["weight"]].set_index("step")[["hops", "dram_bytes"]]
    layer_of = steps.set_index("step")["layer_name"]
    shared = sums[sums["weight"]].assign(layer_name=lambda f: layer_of.reindex(f["step"]).to_numpy())
    per_layer = shared.groupby("layer_name", sort=False)[["hops", "dram_bytes"]].sum()
    per_layer = per_layer.floordiv(layer_groups(steps).reindex(per_layer.index), axis=0)
    spread = steps[["step", "layer_name"]].join(per_layer, on="layer_name").set_index("step")
    total = own.reindex(steps["step"], fill_value=0) + spread[["hops", "dram_bytes"]].fillna(0).astype("int64")
    return total.astype("int64").reset_index()
