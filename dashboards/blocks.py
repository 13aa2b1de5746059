"""L2 held over time as a stacked area by tensor type: the map for files without addresses (raw dialect)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboards.figures import CONFLICT_COLOR, TYPE_COLORS, empty_figure, escape, finish_layout, span_ends
from irtools.analysis.units import byte_ticks


def blocks_figure(
    blocks: pd.DataFrame,
    *,
    core_id: int,
    core_label: str,
    capacity_kib: int | None,
    cycles: str | None = None,
    window: tuple[float, float] | None = None,
    x_extent: float | None = None,
) -> go.Figure:
    """KiB held in each snapshot of one core, stacked ifmap / weight / ofmap.

    Rectangles need addresses, which the raw dialect does not have; the block counts it records
    show how full L2 is and with what. The L2 size is a dashed line when known; snapshots above
    it are marked. With `cycles` (the timing model's name) `blocks` carries `start`/`end` per
    snapshot (spans.with_cycles) and x is cycles as on the timeline, `window` the range shown and
    `x_extent` the makespan; otherwise x is the workload position.
    """
    mine = blocks[blocks["core_id"] == core_id]
    if cycles is not None:
        mine = mine[mine["start"].notna()]  # a workload in a wait cycle has no time to draw at
    if mine.empty:
        return empty_figure(f"no L2 snapshots on {core_label}" + (" that can be scheduled" if cycles else ""))
    x = mine["start" if cycles is not None else "position"].to_numpy()
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
                    x=over["start" if cycles is not None else "position"].to_numpy(),
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
    if cycles is not None:
        # A step holds until the next snapshot: the last one until its workload ends.
        last = float(mine["end"].iloc[-1])
        for trace in fig.data[:3]:
            trace.x = np.append(trace.x, last)
            trace.y = np.append(trace.y, trace.y[-1])
            trace.customdata = np.append(trace.customdata, trace.customdata[-1])
        # Cycle counts reach billions: SI ticks (1.2G) as the timeline writes them, not Plotly's 1.2B.
        fig.update_xaxes(title=f"cycles ({cycles} model, as the timeline)", tickformat="~s")
        end = x_extent or last
        # Not just this core's snapshots (a core done early showed only its first 3% after a reset).
        fig.add_trace(span_ends(end))
        fig.update_xaxes(range=list(window) if window is not None else [0, end])
    else:
        fig.update_xaxes(title="workload position on the core")
    # Binary units, as the counter track above and the allocated files' map write bytes (not 1,200).
    values, labels = byte_ticks(max(peak, capacity_kib or 0, 1) * 1024, 6)
    fig.update_yaxes(title="held", rangemode="tozero", tickvals=[v / 1024 for v in values], ticktext=labels)
    return finish_layout(fig, title, 420)
