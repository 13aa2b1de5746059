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
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from irtools.analysis.units import byte_ticks, format_bytes

TEMPLATE = "plotly_white"
# The house look is the default template of every figure made in this process: a template set per
# figure is validated and copied each time (15-35 ms a figure, a fifth of the server time of a zoom,
# which redraws four figures), the default once per figure at no cost.
pio.templates.default = TEMPLATE

TYPE_COLORS = {"ifmap": "#4C78A8", "ofmap": "#F58518", "weight": "#54A24B"}
"""Tensor types: blue, orange, green (distinguishable for the common color-vision deficiencies)."""
LAYER_TYPE_COLORS = ["#4C78A8", "#F58518", "#54A24B", "#B279A2", "#9D755D", "#72B7B2", "#EECA3B", "#BAB0AC"]
# One color per meaning, each with its legend entry; none is a tensor or layer type color.
CONFLICT_COLOR = "#D62728"
"""Red, hatched: tensors sharing addresses (GIR302, GIR401)."""
OUT_OF_BOUNDS_COLOR = "#7B3294"
"""Purple: a tensor past its buffer's end (GIR301) and the buffer end line."""
HIGHLIGHT_COLOR = "#111111"
"""Black outline: what the user selected (a workload, a finding, a transfer)."""
CRITICAL_COLOR = "#FFD400"
STALL_COLOR = "#c2549d"
"""NoC-stalled time on the cards and the timeline: the PuRd hue of the mesh's stalled-share tiles."""
"""Yellow rail on black: the critical path."""
WAIT_CYCLE_COLOR = "#C51B7D"
"""Pink, hatched: workloads in or behind a wait cycle (GIR502), and the cycle's waits."""
MIN_HEIGHT = 0.006
"""Least height of a tensor rectangle, as a share of the address axis."""
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
        # The title on its own line, the legend on the next: long titles no longer run under it.
        title={
            "text": html.escape(title, quote=False),
            "x": 0.01,
            "y": 1.0,
            "yanchor": "top",
            "yref": "container",
            "pad": {"t": 8},
            "font": {"size": 15},
        },
        height=height + 14,
        margin={"l": 70, "r": 20, "t": 64, "b": 40},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0},
        hoverlabel={"align": "left"},
        uirevision=title,
    )
    return fig


def span_ends(end: float) -> go.Scatter:
    """Invisible points at 0 and `end` on the cycles axis: a reset (autorange) of a panel under the
    timeline then spans the whole schedule, as the timeline's does, not just the panel's own data."""
    return go.Scatter(
        x=[0, end], y=[0, 0], mode="markers", marker={"opacity": 0}, hoverinfo="skip", showlegend=False
    )


def note_above(fig: go.Figure, text: str) -> None:
    """A grey line above the plot, left: how an aggregated figure should be read."""
    fig.add_annotation(
        text=text,
        xref="paper",
        yref="paper",
        x=0,
        y=1.0,
        yanchor="bottom",
        showarrow=False,
        font={"size": 12, "color": "#555"},
    )


def placeholder() -> dict[str, Any]:
    """A figure with nothing drawn, not even axes: what a graph shows before its file is read (no empty
    default axes from -1 to 6)."""
    hidden = {"visible": False}
    return {
        "data": [],
        "layout": {"xaxis": hidden, "yaxis": hidden, "height": 120, "template": TEMPLATE},
    }


NO_IR = "no IR shown yet"
"""What an empty figure says before a file is shown (none picked, or the first still loading)."""


def empty_figure(message: str) -> go.Figure:
    """A blank figure that says, in its middle, why there is nothing to draw."""
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
    cycles: bool = False,
    window: tuple[float, float] | None = None,
    axis_top: int | None = None,
    x_extent: float | None = None,
) -> go.Figure:
    """Address (y) over time (x) for one core, each tensor a rectangle over its lifetime.

    x is the workload position on the core, or with `cycles` the cycles of a timing model: then
    `tensors` and `occupancy` carry `start`/`end` columns (irtools.analysis.spans.with_cycles),
    each snapshot spanning its workload's start to end, and `window` (cycles) is the range shown.
    Below, bytes held in each snapshot against the capacity. Tensors sharing addresses are
    hatched red (crossing hatches, so both show); tensors past the buffer end are outlined purple,
    with the y range extended to show them and the end marked. Above MAX_RECTANGLES, a heatmap.
    With the capacity unknown, the address axis reaches `axis_top` (say the file's largest
    extent, so the maps of all cores share a scale), not just this core's tensors. On the cycles
    axis, `x_extent` (the makespan) is the end of the full range, as on the timeline, also for
    a reset (autorange) of the axis.
    """
    mine = tensors[tensors["core_id"] == core_id]
    snapshots = occupancy[occupancy["core_id"] == core_id]
    if mine.empty and snapshots.empty:
        return empty_figure(f"{kind}, core {core_id}: this core has no {kind} entries in the file")
    if cycles and snapshots["start"].isna().all():
        cycles = False  # no workload of this core can be scheduled (GIR502): positions still work
        note = " by position: none can be scheduled"
    else:
        note = ""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.75, 0.25], vertical_spacing=0.04)
    pieces = _pieces(mine)
    unplaced = 0
    if cycles:
        placed = pieces["start"].notna() & pieces["end"].notna()
        unplaced = int((~placed).sum())
        pieces = pieces[placed]
        x0, x1 = pieces["start"].to_numpy(float), pieces["end"].to_numpy(float)
        if unplaced:
            note += f" ({unplaced:,} tensors of unschedulable workloads: see by position)"
    else:
        x0 = pieces["first_position"].to_numpy(float) - 0.48
        x1 = pieces["last_position"].to_numpy(float) + 0.48
    highest = int(pieces["hi"].max()) if len(pieces) else 0
    if len(pieces) > MAX_RECTANGLES:
        starts = snapshots.sort_values("position")["start"].to_numpy(float) if cycles else None
        fig.add_trace(_heatmap(pieces, len(snapshots), capacity, starts), row=1, col=1)
        note += f" (aggregated: {len(pieces):,} rectangles)"
    else:
        for trace in _rectangles(pieces, x0, x1, capacity, focus, max(capacity or 0, highest, axis_top or 0)):
            fig.add_trace(trace, row=1, col=1)
    fig.add_trace(_held(snapshots, cycles), row=2, col=1)
    if pieces.empty:  # say why the panel is empty
        broken = "incomplete" in snapshots and bool(snapshots["incomplete"].any())
        if unplaced:
            why = f"no {kind} tensor here lives in a workload that can be<br>scheduled (GIR502): pick workload position"
        elif broken:
            why = f"no {kind} tensors to draw: this core's entries<br>broke the schema (see the findings)"
        else:
            why = f"no {kind} tensors: this core's workloads list no {kind} entries"
        fig.add_annotation(
            text=why, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.62, font={"size": 13}
        )
    top = max(capacity or 0, highest, 1)
    if not capacity:
        top = max(int(max(top, axis_top or 0) * 1.1), 16)
    # A handful of region boundaries: layout lines are fine here, unlike for data.
    for y in sorted({edge for region in regions for edge in region if 0 < edge < top}):
        fig.add_hline(y=y, line={"color": "#888", "dash": "dash", "width": 1}, row=1, col=1)
    if capacity:
        fig.add_hline(y=capacity, line={"color": CONFLICT_COLOR, "dash": "dot", "width": 1}, row=2, col=1)
    if capacity and highest > capacity:
        fig.add_hline(
            y=capacity,
            line={"color": OUT_OF_BOUNDS_COLOR, "dash": "dash", "width": 2},
            annotation={
                "text": f"{kind} end ({format_bytes(capacity)})",
                "font": {"color": OUT_OF_BOUNDS_COLOR},
            },
            annotation_position="top left",
            row=1,
            col=1,
        )
        top = int(highest * 1.05)
    values, labels = byte_ticks(top, 8)
    fig.update_yaxes(title="address", range=[0, top], row=1, col=1, tickvals=values, ticktext=labels)
    held_top = max(int(snapshots["total_bytes"].max()) if len(snapshots) else 0, capacity or 0, 1)
    values, labels = byte_ticks(held_top, 8)
    fig.update_yaxes(
        title="held", row=2, col=1, range=[0, held_top * 1.05], tickvals=values[::2], ticktext=labels[::2]
    )
    if cycles:
        fig.update_xaxes(title="cycles", row=2, col=1)
        fig.update_xaxes(tickformat="~s", hoverformat=",.0f")
        end = x_extent or float(np.nanmax(snapshots["end"].to_numpy(float)))
        # Invisible points at both ends: autorange (a reset) then spans what the timeline spans,
        # and a panel without tensors still draws its axes.
        for row in (1, 2):
            fig.add_trace(span_ends(end), row=row, col=1)
        fig.update_xaxes(range=list(window) if window is not None else [0, end])
    else:
        fig.update_xaxes(title="workload position on the core", row=2, col=1)
        last = max(len(snapshots), int(pieces["last_position"].max()) + 1 if len(pieces) else 0)
        span = [-0.5, max(last, 1) - 0.5]
        if focus and focus.core_id == core_id and focus.position is not None:
            span = [max(focus.position - 6.5, -0.5), min(focus.position + 6.5, last - 0.5)]
        fig.update_xaxes(range=span, dtick=1 if span[1] - span[0] <= 30 else None)
    if focus and focus.core_id == core_id and focus.position is not None:
        _mark_workload(fig, snapshots, focus.position, cycles)
    fig.update_layout(barmode="overlay", bargap=0)
    if capacity:
        cap = format_bytes(capacity)
    else:
        cap = "size unknown"
    return finish_layout(fig, f"{kind} occupancy, core {core_id} ({cap}){note}", 560)


def _mark_workload(fig: go.Figure, snapshots: pd.DataFrame, position: int, cycles: bool) -> None:
    """A band over the selected workload's snapshot, across both panels (one layout shape)."""
    row = snapshots[snapshots["position"] == position]
    if row.empty:
        return
    if cycles:
        x0, x1 = float(row["start"].iloc[0]), float(row["end"].iloc[0])
        if np.isnan(x0):
            return
    else:
        x0, x1 = position - 0.5, position + 0.5
    fig.add_vrect(
        x0=x0,
        x1=x1,
        fillcolor="rgba(0,0,0,0.07)",
        line={"color": HIGHLIGHT_COLOR, "width": 1.5},
        annotation={"text": f"workload {int(row['workload_id'].iloc[0])}", "font": {"size": 11}},
        annotation_position="top left",
        row="all",
        col=1,
    )


def _held(snapshots: pd.DataFrame, cycles: bool) -> go.Scatter:
    """Bytes held per snapshot, a step line: over each workload's cycles, or one step per position."""
    if cycles:
        done = snapshots[snapshots["start"].notna()]
        x = np.append(done["start"].to_numpy(float), done["end"].to_numpy(float)[-1:])
        y = np.append(done["total_bytes"].to_numpy(), done["total_bytes"].to_numpy()[-1:])
        rows = pd.concat([done, done.tail(1)])
    else:
        x, y, rows = snapshots["position"].to_numpy(), snapshots["total_bytes"].to_numpy(), snapshots
    return go.Scatter(
        x=x,
        y=y,
        mode="lines+markers" if len(x) <= 60 else "lines",
        marker={"size": 5},
        line={"shape": "hv", "color": "#333", "width": 1.5},
        name="bytes held",
        customdata=np.column_stack(
            [
                escape(rows["layer_name"]),
                rows["workload_id"].to_numpy(),
                rows["position"].to_numpy(),
                [format_bytes(v) for v in rows["total_bytes"]],
            ]
        ),
        hovertemplate="workload %{customdata[1]} (position %{customdata[2]}, %{customdata[0]})"
        "<br>holds %{y:,} B (%{customdata[3]})<extra></extra>",
    )


def _rectangles(
    pieces: pd.DataFrame,
    x0: np.ndarray,
    x1: np.ndarray,
    capacity: int | None,
    focus: Focus | None,
    top: int,
) -> list[go.BaseTraceType]:
    traces: list[go.BaseTraceType] = []
    if pieces.empty:
        return traces
    lo, hi = pieces["lo"].to_numpy(), pieces["hi"].to_numpy()
    real_hi = hi
    # Drawn at least MIN_HEIGHT of the axis tall: a 13 KiB tensor in 1 MiB would be a 1-px line.
    # The hover and the outlines' tests use the real bounds.
    hi = np.maximum(hi, lo + int(top * MIN_HEIGHT))
    kinds = pieces["type"].to_numpy() if "type" in pieces else np.full(len(pieces), "weight")
    ids = pieces["tensor_id"].to_numpy() if "tensor_id" in pieces else np.full(len(pieces), -1)
    times = (
        [f"<br>cycles {a:,.0f} - {b:,.0f}" for a, b in zip(pieces["start"], pieces["end"], strict=True)]
        if "start" in pieces
        else [""] * len(pieces)
    )
    custom = np.column_stack(
        [
            escape(pieces["layer_name"]),
            ids,
            escape(pieces["transfer_ids"]),
            [f"0x{a:x} ({a:,})" for a in pieces["address"]],
            [f"{n:,} B ({format_bytes(n)})" for n in pieces["size"]],
            pieces["first_workload_id"].to_numpy(),
            pieces["first_position"].to_numpy(),
            pieces["last_workload_id"].to_numpy(),
            pieces["last_position"].to_numpy(),
            kinds,
            times,
            escape(pieces["problem"]) if "problem" in pieces else [""] * len(pieces),
        ]
    )
    hover = (
        "<b>%{customdata[9]}</b> tensor %{customdata[1]} %{customdata[0]}<br>transfers %{customdata[2]}"
        "<br>address %{customdata[3]}, %{customdata[4]}<br>live from workload %{customdata[5]} "
        "(position %{customdata[6]}) to workload %{customdata[7]} (position %{customdata[8]})"
        "%{customdata[10]}<br>%{customdata[11]}<extra></extra>"
    )
    overlap = pieces["overlaps"].to_numpy(bool)
    outside = pieces["problem"].notna().to_numpy() if "problem" in pieces else np.zeros(len(pieces), bool)
    if capacity:
        outside = outside | (real_hi > capacity)
    # Crossing hatches: of two overlapping tensors, one leans each way, so both stay visible.
    hatch = np.where(overlap, np.where(np.arange(len(pieces)) % 2 == 0, "/", "\\"), "")
    for kind in ("ifmap", "ofmap", "weight"):
        mask = kinds == kind
        if not mask.any():
            continue
        traces.append(
            go.Bar(
                name=kind,
                x=(x0[mask] + x1[mask]) / 2,
                width=(x1[mask] - x0[mask]),
                base=lo[mask],
                y=hi[mask] - lo[mask],
                customdata=custom[mask],
                hovertemplate=hover,
                marker={
                    "color": TYPE_COLORS[kind],
                    "opacity": np.where(overlap[mask], 0.6, 0.85),
                    "line": {"color": "white", "width": 0.5},
                    "pattern": {"shape": hatch[mask], "fgcolor": CONFLICT_COLOR, "size": 7, "solidity": 0.3},
                },
            )
        )
    if overlap.any():
        traces.append(
            _outline(
                x0[overlap], x1[overlap], lo[overlap], hi[overlap], "overlap (GIR302/401)", CONFLICT_COLOR
            )
        )
    if outside.any():
        traces.append(
            _outline(
                x0[outside],
                x1[outside],
                lo[outside],
                hi[outside],
                "out of bounds (GIR301)",
                OUT_OF_BOUNDS_COLOR,
            )
        )
    if focus and focus.transfer_id is not None and "transfer_ids" in pieces:
        tid = str(focus.transfer_id)
        hit = pieces["transfer_ids"].fillna("").str.split(";").map(lambda ids: tid in ids).to_numpy(bool)
        if hit.any():
            traces.append(_outline(x0[hit], x1[hit], lo[hit], hi[hit], f"transfer {tid}", HIGHLIGHT_COLOR))
    return traces


def _outline(x0: np.ndarray, x1: np.ndarray, lo: np.ndarray, hi: np.ndarray, name: str, color: str) -> go.Bar:
    return go.Bar(
        name=html.escape(name, quote=False),
        x=(x0 + x1) / 2,
        width=x1 - x0,
        base=lo,
        y=hi - lo,
        marker={"color": "rgba(0,0,0,0)", "line": {"color": color, "width": 2.5}},
        hoverinfo="skip",
    )


def _heatmap(
    pieces: pd.DataFrame, positions: int, capacity: int | None, starts: np.ndarray | None = None
) -> go.Heatmap:
    """Tensors per (position, address bin), from a 2-D difference array: linear in the pieces.

    `starts` (cycles, one per position) puts the columns on a cycles axis.
    """
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
        x=np.arange(width) if starts is None else _column_starts(starts, width),
        y=np.arange(bins) * bin_size,
        colorscale="Blues",
        colorbar={"title": "tensors", "len": 0.7, "y": 0.62},
        hovertemplate=("position %{x}" if starts is None else "cycles ~%{x:,.0f}")
        + "<br>address ~%{y:,}<br>%{z} tensors<extra></extra>",
        name="tensors",
    )


def _column_starts(starts: np.ndarray, width: int) -> np.ndarray:
    """One increasing x per heatmap column: the start cycle of each position, the last carried on."""
    x = np.full(width, np.nan)
    x[: min(width, len(starts))] = starts[:width]
    filled: np.ndarray = pd.Series(x).ffill().fillna(0).cummax().to_numpy()
    return filled
