"""What each NoC link costs the schedule: the cycles its load adds to the layer steps it bounds.

Gemini bounds a layer step by its heaviest link's load over the NoC bandwidth (irtools.analysis.noc);
a link *costs* the cycles by which that NoC time exceeds the step's longest workload, on the steps where
it is the heaviest link. The link carrying the most bytes need not cost the most: a link carrying fewer
bytes inside one short step can bound it, while a heavy link spread over long compute-bound steps adds
nothing. Ranking links by cost, when a NoC bandwidth is known, names the bottleneck the `noc` timeline shows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irtools.analysis.link_load import Window, in_window

COLUMNS = ("link", "added_cycles", "bound_steps", "bound_layers")


def link_costs(steps: pd.DataFrame, spans: pd.DataFrame, window: Window | None = None) -> pd.DataFrame:
    """Per link that bounds a step: link, added_cycles (in `window`, pro rata of each step's overlap),
    bound_steps, bound_layers (distinct layers), costliest first.

    `steps` is noc.step_costs (step, layer_name, link, added); `spans` link_load.step_spans (step, start, end).
    """
    bound = steps[steps["added"] > 0].merge(spans, on="step", how="left")
    share = in_window(bound["start"].to_numpy(float), bound["end"].to_numpy(float), window)
    bound = bound.assign(share=share, cost=bound["added"].to_numpy(float) * share)
    bound = bound[bound["share"] > 0]
    if bound.empty:
        return pd.DataFrame({c: pd.Series(dtype="int64" if c != "link" else "object") for c in COLUMNS})
    out = bound.groupby("link", as_index=False).agg(
        added_cycles=("cost", "sum"), bound_steps=("step", "size"), bound_layers=("layer_name", "nunique")
    )
    out["added_cycles"] = np.round(out["added_cycles"]).astype("int64")
    return out.sort_values(["added_cycles", "link"], ascending=[False, True], kind="stable").reset_index(
        drop=True
    )[list(COLUMNS)]


def ranked_links(links: pd.DataFrame, costs: pd.DataFrame | None) -> tuple[pd.DataFrame, str]:
    """The noc_links rows with added_cycles and bound_layers, costliest first, and what ranks them:
    `cycles added` with costs (a NoC bandwidth is known), else `bytes` (heaviest first, as given)."""
    if costs is None:
        return links.assign(added_cycles=pd.NA, bound_layers=pd.NA), "bytes"
    merged = links.merge(costs[["link", "added_cycles", "bound_layers"]], on="link", how="left")
    merged["added_cycles"] = merged["added_cycles"].fillna(0).astype("int64")
    merged["bound_layers"] = merged["bound_layers"].fillna(0).astype("int64")
    order = merged.sort_values(
        ["added_cycles", "bytes", "link"], ascending=[False, False, True], kind="stable"
    )
    return order.reset_index(drop=True), "cycles added"
