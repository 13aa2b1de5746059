"""Plotly figures from the analysis tables: L2/WL0 occupancy maps, and what every figure shares.

Builders take DataFrames from `irtools.analysis` and return figures; they hold no analysis
logic. Data is drawn as a few traces with arrays (bars with `base=`), never as layout shapes,
which do not scale. Every string from the IR is HTML-escaped before it reaches a label, since
Plotly renders a subset of HTML in hover text.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

TYPE_COLORS = {"ifmap": "#4C78A8", "ofmap": "#F58518", "weight": "#54A24B"}
"""Tensor types: blue, orange, green (distinguishable for the common color-vision deficiencies)."""
LAYER_TYPE_COLORS = ["#4C78A8", "#F58518", "#54A24B", "#B279A2", "#9D755D", "#72B7B2", "#EECA3B", "#BAB0AC"]
CONFLICT_COLOR = "#D62728"
HIGHLIGHT_COLOR = "#E45756"
MAX_RECTANGLES = 20_000
"""Above this many tensor rectangles in one map, draw an aggregated heatmap instead."""
ADDRESS_BINS = 512


@dataclass(frozen=True)
class Focus:
    """What to emphasize: workloads (core_id, position) and tensors (core_id, transfer id)."""

    workloads: frozenset[tuple[int, int]] = frozenset()
    transfer_id: int | None = None
    core_id: int | None = None
    position: int | None = None
    """The workload to center the view on, if any."""
    tensor_ids: frozenset[int] = field(default_factory=frozenset)


def escape(values: Iterable[object]) -> list[str]:
    """IR text made safe for Plotly labels (which interpret a subset of HTML)."""
    # Quotes stay: Plotly decodes &lt; &gt; &amp; but would show &quot; literally, and quotes alone make no tag.
    return [
        "" if v is None or (isinstance(v, float) and np.isnan(v)) else html.escape(str(v), quote=False)
        for v in values
    ]


def finish_layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    """The look every figure shares: title, size, margins, legend on top, and a UI revision per title."""
    fig.update_layout(
        title={"text": html.escape(title, quote=False), "x": 0.01, "font": {"size": 15}},
        height=height,
        margin={"l": 70, "r": 20, "t": 50, "b": 40},
        template="plotly_white",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        hoverlabel={"align": "left"},
        uirevision=title,
    )
    return fig


def empty_figure(message: str) -> go.Figure:
    fig = go.Figure()
    fig.add_annotation(
        text=html.escape(message, quote=False),
        showarrow=False,
        font={"size": 14},
        x=0.5,
        y=0.5,
        xref="paper",
        yref="paper",
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return finish_layout(fig, "", 200)


def _pieces(tensors: pd.DataFrame) -> pd.DataFrame:
    """One row per occupied byte range of a tensor lifetime (a wrapped tensor gives two)."""
    if tensors.empty:
        return tensors.assign(lo=pd.Series(dtype="int64"), hi=pd.Series(dtype="int64"))
    if "segments" in tensors:
        spans = tensors["segments"].str.split(";")
        exploded = tensors.assign(span=spans).explode("span")
        bounds = exploded["span"].str.split("-", expand=True).astype("int64")
        return exploded.assign(lo=bounds[0].to_numpy("int64"), hi=bounds[1].to_numpy("int64"))
    return tensors.assign(lo=tensors["address"], hi=tensors["address"] + tensors["size"])


def occupancy_figure(
    tensors: pd.DataFrame,
    occupancy: pd.DataFrame,
    *,
    core_id: int,
    capacity: int | None,
    kind: str = "L2",
    regions: Sequence[tuple[int, int]] = (),
    focus: Focus | None = None,
) -> go.Figure:
    """Address (y) over workload order (x) for one core, each tensor a rectangle over its lifetime.

    Below it, bytes held in each snapshot against the capacity. Tensors that overlap another or
    leave their buffer are outlined in red. Above MAX_RECTANGLES, an aggregated heatmap.
    """
    mine = tensors[tensors["core_id"] == core_id]
    snapshots = occupancy[occupancy["core_id"] == core_id]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.75, 0.25], vertical_spacing=0.04)
    pieces = _pieces(mine)
    if len(pieces) > MAX_RECTANGLES:
        fig.add_trace(_heatmap(pieces, len(snapshots), capacity), row=1, col=1)
        note = f" (aggregated: {len(pieces):,} rectangles)"
    else:
        for trace in _rectangles(pieces, focus):
            fig.add_trace(trace, row=1, col=1)
        note = ""
    x = snapshots["position"].to_numpy()
    fig.add_trace(
        go.Scatter(
            x=x,
            y=snapshots["total_bytes"].to_numpy(),
            mode="lines+markers" if len(x) <= 60 else "lines",
            marker={"size": 5},
            line={"shape": "hv", "color": "#333", "width": 1.5},
            name="bytes held",
            customdata=np.column_stack(
                [escape(snapshots["layer_name"]), snapshots["workload_id"].to_numpy()]
            ),
            hovertemplate="workload %{customdata[1]} (%{customdata[0]})<br>%{y:,} bytes<extra></extra>",
        ),
        row=2,
        col=1,
    )
    top = capacity or int(max(pieces["hi"].max() if len(pieces) else 0, 1))
    # A handful of region boundaries: layout lines are fine here, unlike for data.
    for y in sorted({edge for region in regions for edge in region if 0 < edge < top}):
        fig.add_hline(y=y, line={"color": "#888", "dash": "dash", "width": 1}, row=1, col=1)
    if capacity:
        fig.add_hline(y=capacity, line={"color": CONFLICT_COLOR, "dash": "dot", "width": 1}, row=2, col=1)
    fig.update_yaxes(title="address (bytes)", range=[0, top], row=1, col=1, tickformat="~s")
    fig.update_yaxes(title="held", row=2, col=1, rangemode="tozero", tickformat="~s")
    fig.update_xaxes(title="workload position on the core", row=2, col=1)
    last = max(len(snapshots), int(pieces["last_position"].max()) + 1 if len(pieces) else 0)
    window = [-0.5, max(last, 1) - 0.5]
    if focus and focus.core_id == core_id and focus.position is not None:
        window = [max(focus.position - 6.5, -0.5), min(focus.position + 6.5, last - 0.5)]
    fig.update_xaxes(range=window, dtick=1 if window[1] - window[0] <= 30 else None)
    fig.update_layout(barmode="overlay", bargap=0)
    cap = f"{capacity:,} B" if capacity else "size unknown"
    return finish_layout(fig, f"{kind} occupancy, core {core_id} ({cap}){note}", 560)


def _rectangles(pieces: pd.DataFrame, focus: Focus | None) -> list[go.BaseTraceType]:
    traces: list[go.BaseTraceType] = []
    if pieces.empty:
        return traces
    first = pieces["first_position"].to_numpy()
    last = pieces["last_position"].to_numpy()
    lo, hi = pieces["lo"].to_numpy(), pieces["hi"].to_numpy()
    kinds = pieces["type"].to_numpy() if "type" in pieces else np.full(len(pieces), "weight")
    ids = pieces["tensor_id"].to_numpy() if "tensor_id" in pieces else np.full(len(pieces), -1)
    custom = np.column_stack(
        [
            escape(pieces["layer_name"]),
            ids,
            escape(pieces["transfer_ids"]),
            pieces["address"].to_numpy(),
            pieces["size"].to_numpy(),
            pieces["first_workload_id"].to_numpy(),
            pieces["last_workload_id"].to_numpy(),
            kinds,
        ]
    )
    hover = (
        "<b>%{customdata[7]}</b> tensor %{customdata[1]} %{customdata[0]}<br>transfers %{customdata[2]}"
        "<br>address %{customdata[3]:,}, %{customdata[4]:,} bytes<br>live in workloads "
        "%{customdata[5]} - %{customdata[6]}<extra></extra>"
    )
    conflict = pieces["overlaps"].to_numpy(bool)
    if "problem" in pieces:
        conflict = conflict | pieces["problem"].notna().to_numpy()
    for kind in ("ifmap", "ofmap", "weight"):
        mask = kinds == kind
        if not mask.any():
            continue
        traces.append(
            go.Bar(
                name=kind,
                x=(first[mask] + last[mask]) / 2,
                width=(last[mask] - first[mask] + 1) * 0.96,
                base=lo[mask],
                y=hi[mask] - lo[mask],
                customdata=custom[mask],
                hovertemplate=hover,
                marker={
                    "color": TYPE_COLORS[kind],
                    "opacity": 0.85,
                    "line": {
                        "color": np.where(conflict[mask], CONFLICT_COLOR, "white"),
                        "width": np.where(conflict[mask], 2.5, 0.5),
                    },
                },
            )
        )
    if conflict.any():
        traces.append(
            _outline(
                first[conflict],
                last[conflict],
                lo[conflict],
                hi[conflict],
                "overlap / out of bounds",
                CONFLICT_COLOR,
            )
        )
    if focus and focus.transfer_id is not None and "transfer_ids" in pieces:
        tid = str(focus.transfer_id)
        hit = pieces["transfer_ids"].fillna("").str.split(";").map(lambda ids: tid in ids).to_numpy(bool)
        if hit.any():
            traces.append(
                _outline(first[hit], last[hit], lo[hit], hi[hit], f"transfer {tid}", HIGHLIGHT_COLOR)
            )
    return traces


def _outline(
    first: np.ndarray, last: np.ndarray, lo: np.ndarray, hi: np.ndarray, name: str, color: str
) -> go.Bar:
    return go.Bar(
        name=html.escape(name, quote=False),
        x=(first + last) / 2,
        width=(last - first + 1) * 0.96,
        base=lo,
        y=hi - lo,
        marker={"color": "rgba(0,0,0,0)", "line": {"color": color, "width": 3}},
        hoverinfo="skip",
    )


def _heatmap(pieces: pd.DataFrame, positions: int, capacity: int | None) -> go.Heatmap:
    """Tensors per (position, address bin), from a 2-D difference array: linear in the pieces."""
    top = capacity or int(pieces["hi"].max())
    width = max(positions, int(pieces["last_position"].max()) + 1)
    bin_size = max(top // ADDRESS_BINS, 1)
    bins = top // bin_size + 1
    diff = np.zeros((bins + 1, width + 1), np.int64)
    b0 = np.clip(pieces["lo"].to_numpy() // bin_size, 0, bins - 1)
    b1 = np.clip((pieces["hi"].to_numpy() - 1) // bin_size, 0, bins - 1) + 1
    p0 = pieces["first_position"].to_numpy()
    p1 = pieces["last_position"].to_numpy() + 1
    np.add.at(diff, (b0, p0), 1)
    np.add.at(diff, (b1, p0), -1)
    np.add.at(diff, (b0, p1), -1)
    np.add.at(diff, (b1, p1), 1)
    counts = diff.cumsum(0).cumsum(1)[:bins, :width]
    return go.Heatmap(
        z=np.where(counts > 0, counts, np.nan),
        x=np.arange(width),
        y=np.arange(bins) * bin_size,
        colorscale="Blues",
        colorbar={"title": "tensors", "len": 0.7, "y": 0.62},
        hovertemplate="position %{x}<br>address ~%{y:,}<br>%{z} tensors<extra></extra>",
        name="tensors",
    )
