"""L2 held over time as a stacked area by tensor type: the map for files without addresses (raw dialect)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboards.figures import CONFLICT_COLOR, TYPE_COLORS, empty_figure, escape, finish_layout


def blocks_figure(
    blocks: pd.DataFrame, *, core_id: int, core_label: str, capacity_kib: int | None
) -> go.Figure:
    """KiB held in each snapshot of one core (x = workload position), stacked ifmap / weight / ofmap.

    Rectangles need addresses, which the raw dialect does not have; the block counts it records
    show how full L2 is and with what. The L2 size is a dashed line when known; snapshots above
    it are marked.
    """
    mine = blocks[blocks["core_id"] == core_id]
    if mine.empty:
        return empty_figure(f"no L2 snapshots on {core_label}")
    x = mine["position"].to_numpy()
    hover = [
        f"workload {w} ({name})<br>held {h:,} KiB" + (f" of {capacity_kib:,}" if capacity_kib else "")
        for w, name, h in zip(mine["workload_id"], escape(mine["layer_name"]), mine["held_kib"], strict=True)
    ]
    fig = go.Figure()
    for kind in ("ifmap", "weight", "ofmap"):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=mine[f"{kind}_kib"].to_numpy(),
                name=kind,
                mode="lines",
                line={"width": 0.5, "color": TYPE_COLORS[kind], "shape": "hv"},
                fillcolor=TYPE_COLORS[kind],
                stackgroup="held",
                customdata=np.array(hover, dtype=object),
                hovertemplate=f"{kind} %{{y:,}} KiB<br>%{{customdata}}<extra></extra>",
            )
        )
    peak = int(mine["held_kib"].max())
    title = f"L2 KiB held on {core_label} (blocks; no addresses): peak {peak:,}"
    if capacity_kib:
        fig.add_hline(y=capacity_kib, line={"color": "#555", "dash": "dash", "width": 1})
        over = mine[mine["held_kib"] > capacity_kib]
        if not over.empty:
            fig.add_trace(
                go.Scatter(
                    x=over["position"].to_numpy(),
                    y=over["held_kib"].to_numpy(),
                    mode="markers",
                    marker={"color": CONFLICT_COLOR, "size": 6, "symbol": "triangle-up"},
                    name=f"over L2 ({len(over)})",
                    hoverinfo="skip",
                )
            )
        title += f" of {capacity_kib:,}"
    else:
        title += " (L2 size unknown)"
    fig.update_xaxes(title="workload position on the core")
    fig.update_yaxes(title="KiB held", rangemode="tozero")
    return finish_layout(fig, title, 420)
