"""The per-core timeline (Gantt) from the analysis' timeline table."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboards.figures import (
    CONFLICT_COLOR,
    HIGHLIGHT_COLOR,
    LAYER_TYPE_COLORS,
    Focus,
    empty_figure,
    escape,
    finish_layout,
)

MAX_ARROWS = 5_000
"""Cross-core transfer arrows drawn in the timeline at most."""
MAX_BARS = 4_000
"""Above this many workloads in view, the timeline shows busy time per bin instead of bars."""
TIME_BINS = 600
"""Time bins of the aggregated timeline: about one per two pixels of a wide screen."""


def timeline_figure(
    timeline: pd.DataFrame,
    model: str,
    *,
    core_transfers: pd.DataFrame | None = None,
    layers: Sequence[str] | None = None,
    focus: Focus | None = None,
    window: tuple[float, float] | None = None,
    zoomable: bool = True,
) -> go.Figure:
    """A Gantt chart: one row per core, workloads as bars colored by layer_type.

    `core_transfers` adds an arrow per cross-core transfer; `layers` dims every other layer;
    `focus` outlines workloads and zooms to the focused one unless `window` (cycles) says which
    part of the schedule to show. With more than MAX_BARS workloads in view, each core's row shows its
    busy time per time bin instead, colored by the layer type that fills most of the bin:
    thousands of SVG bars take the browser seconds to draw. In the dashboard (`zoomable`),
    zooming in brings the bars back; a static figure says where to see them.
    """
    if timeline["layer_type"].isna().any():  # Gemini writes no layer_type for Transpose layers
        timeline = timeline.assign(layer_type=timeline["layer_type"].fillna("(none)"))
    rows = timeline[(timeline["model"] == model)]
    placed = rows[rows["start"].notna()]
    cores = sorted(timeline["core_id"].unique())
    labels = core_labels(timeline)
    if rows.empty:
        return empty_figure("no workloads")
    fig = go.Figure()
    kinds = sorted(set(placed["layer_type"].astype(str)))  # over the whole file: colors stay on zoom
    if window is None and focus and focus.position is not None and focus.core_id is not None:
        hit = placed[(placed["core_id"] == focus.core_id) & (placed["position"] == focus.position)]
        if not hit.empty:
            s, e = int(hit["start"].iloc[0]), int(hit["end"].iloc[0])
            pad = max((e - s) * 3, 1)
            window = (max(s - pad, 0), e + pad)
    shown = placed if window is None else placed[(placed["end"] > window[0]) & (placed["start"] < window[1])]
    makespan = rows["end"].max() if rows["start"].notna().all() else None
    if len(shown) > MAX_BARS:
        lo, hi = window or (0.0, float(placed["end"].max()))
        selected = shown if not layers else shown[shown["layer_name"].isin(list(layers))]
        for trace in _busy_map(selected, kinds, labels, lo, hi):
            fig.add_trace(trace)
        where = "zoom in for single ones" if zoomable else "irtools serve shows single ones when zoomed"
        fig.add_annotation(
            text=f"{len(shown):,} workloads: busy time per bin (pale: under half busy); {where}",
            xref="paper",
            yref="paper",
            x=0,
            y=1.0,
            yanchor="bottom",
            showarrow=False,
            font={"size": 12, "color": "#555"},
        )
    else:
        for trace in _bars(shown, kinds, labels, layers):
            fig.add_trace(trace)
        if core_transfers is not None and not core_transfers.empty:
            fig.add_trace(_arrows(shown, core_transfers, labels))
        if focus and focus.workloads:
            fig.add_trace(_focus_bars(shown, focus.workloads, labels))
    unplaced_per_core = rows[rows["start"].isna()].groupby("core_id").size()
    if not unplaced_per_core.empty:
        fig.add_trace(
            go.Scatter(
                x=np.zeros(len(unplaced_per_core)),
                y=[labels[c] for c in unplaced_per_core.index],
                mode="text",
                text=[
                    f"  {n} workload{'s' if n != 1 else ''} cannot start (wait cycle, GIR502)"
                    for n in unplaced_per_core
                ],
                textposition="middle right",
                textfont={"color": CONFLICT_COLOR, "size": 13},
                name="unschedulable",
                hoverinfo="skip",
            )
        )
    if makespan is not None:
        fig.add_vline(x=int(makespan), line={"color": "#555", "dash": "dot", "width": 1})
    unplaced = len(rows) - len(placed)
    title = f"Per-core timeline ({model})"
    title += (
        f": makespan {int(makespan):,} cycles"
        if makespan is not None
        else f": {unplaced} workloads cannot be scheduled"
    )
    fig.update_layout(barmode="overlay", bargap=0.35, showlegend=True)  # also for one layer type in view
    # Every core gets its row, also one whose workloads cannot be placed.
    fig.update_yaxes(
        categoryorder="array",
        categoryarray=[labels[c] for c in reversed(cores)],
        range=[-0.5, len(cores) - 0.5],
        title=None,
    )
    fig.update_xaxes(title="cycles", rangemode="tozero")
    if window is not None:
        fig.update_xaxes(range=list(window))
    return finish_layout(fig, title, max(260, 60 + 34 * len(cores)))


def core_labels(timeline: pd.DataFrame) -> dict[int, str]:
    """Row labels: `core 5 (0,1)` when the ids are Gemini's mesh ids, `core 5` when the id is the row-major position."""
    cores = sorted(timeline["core_id"].unique())
    if "core_x" not in timeline or timeline.empty or timeline["core_x"].isna().any():
        return {c: f"core {c}" for c in cores}
    places = timeline.drop_duplicates("core_id").set_index("core_id")[["core_x", "core_y"]]
    width = int(places["core_x"].max()) + 1
    if all(c == int(places.at[c, "core_y"]) * width + int(places.at[c, "core_x"]) for c in cores):
        return {c: f"core {c}" for c in cores}
    return {c: f"core {c} ({int(places.at[c, 'core_x'])},{int(places.at[c, 'core_y'])})" for c in cores}


def aggregated(timeline: pd.DataFrame, model: str) -> bool:
    """Whether the whole schedule has too many workloads for bars (so zooming changes the figure)."""
    rows = timeline[timeline["model"] == model]
    return int(rows["start"].notna().sum()) > MAX_BARS


def _bars(
    placed: pd.DataFrame, kinds: list[str], labels: dict[int, str], layers: Sequence[str] | None
) -> list[go.Bar]:
    start = placed["start"].astype("int64").to_numpy()
    duration = placed["time"].to_numpy()
    keep = np.ones(len(placed), bool) if not layers else placed["layer_name"].isin(list(layers)).to_numpy()
    custom = np.column_stack(
        [
            escape(placed["layer_name"]),
            placed["workload_id"].to_numpy(),
            placed["position"].to_numpy(),
            duration,
            start,
            start + duration,
            escape(placed["ifmap_transfers"]),
            escape(placed["ofmap_transfers"]),
            escape(placed["layer_type"]),
        ]
    )
    hover = (
        "<b>%{customdata[0]}</b> (%{customdata[8]})<br>%{y}, workload %{customdata[1]} "
        "(position %{customdata[2]})<br>time %{customdata[3]:,} cycles: %{customdata[4]:,} - %{customdata[5]:,}"
        "<br>reads transfers: %{customdata[6]}<br>writes transfers: %{customdata[7]}<extra></extra>"
    )
    types = placed["layer_type"].astype(str).to_numpy()
    critical = placed["critical"].to_numpy()
    bars = []
    for i, kind in enumerate(kinds):
        mask = types == kind
        if not mask.any():
            continue
        bars.append(
            go.Bar(
                name=html.escape(kind, quote=False),
                orientation="h",
                base=start[mask],
                x=duration[mask],
                y=[labels[c] for c in placed["core_id"].to_numpy()[mask]],
                customdata=custom[mask],
                hovertemplate=hover,
                marker={
                    "color": LAYER_TYPE_COLORS[i % len(LAYER_TYPE_COLORS)],
                    "opacity": np.where(keep[mask], 1.0, 0.2),
                    "line": {"color": "#222", "width": np.where(critical[mask], 2.0, 0.0)},
                },
            )
        )
    return bars


def _busy_map(
    placed: pd.DataFrame, kinds: list[str], labels: dict[int, str], lo: float, hi: float
) -> list[go.BaseTraceType]:
    """Per core and time bin: the busy share, colored by the layer type busiest in the bin.

    A core runs one workload at a time, so the busy time before x is a prefix sum over the
    workloads started before x, minus what the last of them runs past x: one searchsorted per
    (core, layer type), linear in the workloads.
    """
    edges = np.linspace(lo, hi, TIME_BINS + 1)
    rows = {core: i for i, core in enumerate(labels)}
    busy = np.zeros((len(kinds), len(rows), TIME_BINS))
    types = {kind: i for i, kind in enumerate(kinds)}
    for (core, kind), group in placed.groupby(["core_id", placed["layer_type"].astype(str)]):
        order = np.argsort(group["start"].to_numpy(float))
        start = group["start"].to_numpy(float)[order]
        end = group["end"].to_numpy(float)[order]
        done = np.concatenate([[0.0], np.cumsum(end - start)])
        started = np.searchsorted(start, edges, side="right")
        overrun = np.where(started > 0, np.maximum(end[started - 1] - edges, 0.0), 0.0)
        covered = done[started] - overrun
        busy[types[str(kind)], rows[core]] = np.diff(covered)
    total = busy.sum(axis=0)
    share = total / max((hi - lo) / TIME_BINS, 1e-9)
    strongest = busy.argmax(axis=0)
    # Colors 0..k-1: the layer type's color; k..2k-1: its pale version, for bins under half busy.
    z = np.where(total > 0, strongest + np.where(share < 0.5, len(kinds), 0), np.nan)
    colors = [LAYER_TYPE_COLORS[i % len(LAYER_TYPE_COLORS)] for i in range(len(kinds))]
    palette = colors + [_pale(c) for c in colors]
    scale = []
    for i, color in enumerate(palette):
        scale += [[i / len(palette), color], [(i + 1) / len(palette), color]]
    names = np.array([html.escape(k, quote=False) for k in kinds], dtype=object)
    traces: list[go.BaseTraceType] = [
        go.Heatmap(
            z=z,
            x=(edges[:-1] + edges[1:]) / 2,
            y=list(labels.values()),
            zmin=-0.5,
            zmax=len(palette) - 0.5,
            colorscale=scale,
            showscale=False,
            customdata=np.round(share, 3),
            text=names[strongest],
            hovertemplate="%{y}, cycles ~%{x:,.0f}<br>busy %{customdata:.0%}, mostly %{text}<extra></extra>",
            name="busy time",
            xgap=0,
            ygap=4,
        )
    ]
    for kind, color in zip(kinds, colors, strict=True):  # legend entries, as the bars have
        traces.append(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                marker={"color": color, "symbol": "square", "size": 11},
                name=html.escape(kind, quote=False),
            )
        )
    return traces


def _pale(color: str) -> str:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(round(v + (255 - v) * 0.6) for v in (r, g, b)))


def _arrows(placed: pd.DataFrame, edges: pd.DataFrame, labels: dict[int, str]) -> go.Scatter:
    """Producer end -> consumer start, one NaN-separated line trace with arrowheads.

    At most MAX_ARROWS: beyond a few thousand they are noise on screen and megabytes in the page.
    """
    times = placed[["core_id", "position", "start", "end"]]
    src = times.rename(columns={"core_id": "src_core", "position": "src_position", "end": "x0"})
    dst = times.rename(columns={"core_id": "dst_core", "position": "dst_position", "start": "x1"})
    joined = edges.merge(src[["src_core", "src_position", "x0"]], on=["src_core", "src_position"]).merge(
        dst[["dst_core", "dst_position", "x1"]], on=["dst_core", "dst_position"]
    )
    total = len(joined)
    joined = joined.head(MAX_ARROWS)
    n = len(joined)
    xs = np.empty(3 * n, dtype=object)
    ys = np.empty(3 * n, dtype=object)
    xs[0::3], xs[1::3] = joined["x0"].astype("int64").to_numpy(), joined["x1"].astype("int64").to_numpy()
    ys[0::3], ys[1::3] = joined["src_core"].map(labels).to_numpy(), joined["dst_core"].map(labels).to_numpy()
    name = "transfers" if total <= MAX_ARROWS else f"transfers (first {MAX_ARROWS:,} of {total:,})"
    return go.Scatter(
        x=xs,
        y=ys,
        mode="lines+markers",
        name=name,
        line={"color": "rgba(60,60,60,0.55)", "width": 1},
        marker={
            "symbol": "arrow",
            "angleref": "previous",
            "size": np.tile([0, 9, 0], n),
            "color": "rgba(60,60,60,0.8)",
        },
        hoverinfo="skip",
    )


def _focus_bars(
    placed: pd.DataFrame, workloads: frozenset[tuple[int, int]], labels: dict[int, str]
) -> go.Bar:
    keys = list(zip(placed["core_id"], placed["position"]))
    mask = np.array([k in workloads for k in keys], bool)
    hit = placed[mask]
    return go.Bar(
        name="focus",
        orientation="h",
        base=hit["start"].astype("int64").to_numpy(),
        x=hit["time"].to_numpy(),
        y=[labels[c] for c in hit["core_id"]],
        marker={"color": "rgba(0,0,0,0)", "line": {"color": HIGHLIGHT_COLOR, "width": 3}},
        hoverinfo="skip",
        showlegend=False,
    )
