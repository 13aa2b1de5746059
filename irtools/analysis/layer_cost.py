"""Gemini's cost of each layer, as its scheduler prints it: the `layer_cost` table.

Built from the `noc` model's steps (irtools.analysis.noc.noc_times): per layer, the compute time the IR
records, the NoC time over all its batch groups (Gemini's segment `NoCtime`), its time in the `noc`
model (Gemini's segment `T`), the bytes x hops it puts on the NoC (`NoC_tot_hops`), its DRAM bytes
(`DRAM acc`) and the energy terms (irtools.analysis.energy). One row per layer: the per-step frame is
aggregated by columns, never walked per object.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irtools.analysis.energy import EnergyModel, layer_energy
from irtools.analysis.noc import NocModel, step_compute
from irtools.analysis.tables import LAYER_COST
from irtools.loading.index import IRIndex


def layer_cost_absent(has_bandwidth: bool, has_mesh: bool) -> str | None:
    """Why a file has no `layer_cost` rows (None when it has them): the table needs both a NoC bandwidth
    (Gemini's NoCtime divides by it) and a mesh (xlen/ylen, to route the transfers)."""
    if not has_mesh:
        return "the file records no mesh (xlen, ylen), so its transfers cannot be routed over links"
    if not has_bandwidth:
        return (
            "no NoC bandwidth is known for this file: give serve --noc-bw, or put the file in a folder "
            "whose manifest.csv names its runs' noc_bw"
        )
    return None


def layer_cost_table(
    index: IRIndex, steps: pd.DataFrame, model: NocModel, energy: EnergyModel
) -> pd.DataFrame:
    """The `layer_cost` table from the noc model's steps (`steps`: noc.noc_times of this index and model)."""
    if steps.empty:
        return LAYER_COST.empty()
    compute = step_compute(index)
    frame = steps.assign(
        compute_time=compute,
        step_time=np.maximum(compute, steps["noc_time"].to_numpy()),
    )
    by_layer = frame.groupby("layer_name", sort=False)
    layers = by_layer.agg(
        groups=("step", "count"),
        compute_time=("compute_time", "sum"),
        time=("step_time", "sum"),
        hops=("hops", "sum"),
        dram_bytes=("dram_bytes", "sum"),
        link_bytes=("layer_link_bytes", "first"),
        link=("layer_link", "first"),
    ).reset_index()
    link_time = np.array([model.link_time(int(b)) for b in layers["link_bytes"]])
    dram_time = [model.dram_cycles(int(b)) for b in layers["dram_bytes"]]
    dram_exact = np.array([model.dram_time(int(b)) for b in layers["dram_bytes"]], dtype=float)
    noc_time = np.fmax(link_time, dram_exact)
    slower = layers["time"].to_numpy() > layers["compute_time"].to_numpy()
    bound = np.where(~slower, "compute", np.where(dram_exact > link_time, "DRAM", "NoC"))
    terms = layer_energy(layers["hops"].to_numpy(), layers["dram_bytes"].to_numpy(), energy)
    return LAYER_COST.frame(
        {
            "layer_name": layers["layer_name"],
            "groups": layers["groups"],
            "compute_time": layers["compute_time"],
            "noc_time": noc_time,
            "dram_time": pd.array(dram_time, dtype="Int64"),
            "time": layers["time"],
            "bound": bound.tolist(),
            "link": layers["link"],
            "link_bytes": layers["link_bytes"],
            "hops": layers["hops"],
            "dram_bytes": layers["dram_bytes"],
            **terms,
        }
    )
