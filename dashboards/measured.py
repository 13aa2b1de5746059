"""Estimated against measured: the ZeBu trace's hardware lanes under the IR's timeline, and the slot bars.

Figures only (the numbers come from `irtools.trace.Measured`). One time axis: the estimated
timeline of core 0 on top, then one lane per hardware queue (LD, LW, PE, VP, DT, ST) as measured;
the windows in which no compute queue runs are shaded across the lanes, and the longest waits
are labelled with the instruction that held them. Above MAX_BARS instructions in view each lane
shows its busy share per time bin instead, as the per-core timeline does.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboards.figures import (
    CONFLICT_COLOR,
    LAYER_TYPE_COLORS,
    empty_figure,
    escape,
    finish_layout,
    note_above,
)
from dashboards.timeline import MAX_BARS, TIME_BINS
from irtools.trace import Measured

LANES = ("LD", "LW", "PE", "VP", "DT", "ST")
"""Measured lanes, top to bottom (CT, the control queue, runs a few instructions at the ends only)."""
ESTIMATE = "estimate (IR)"
DMA_COLORS = {"LD": "#6f6f6f", "LW": "#a0a0a0", "ST": "#3f3f3f"}
GAP_FILL = "rgba(214, 39, 40, 0.13)"
LABELLED_WAITS = 5
MAX_CAPPED_LABELS = 30
"""Bars past the slot figure's cut axis get their value written on them, up to this many."""


def _rows() -> dict[str, int]:
    """Lane -> y position (the estimate on top)."""
    names = [ESTIMATE, *LANES]
    return {name: len(names) - 1 - i for i, name in enumerate(names)}


def _estimated(measured: Measured) -> pd.DataFrame:
    w = measured.workloads
    placed = w[w["estimated_start"].notna()]
    return pd.DataFrame(
        {
            "start": placed["estimated_start"].astype("int64").to_numpy(),
            "end": (placed["estimated_start"].astype("int64") + placed["time"]).to_numpy(),
            "kind": placed["layer_type"].astype(str).to_numpy(),
            "label": escape(placed["layer_name"]),
            "wkl": placed["workload_id"].to_numpy(),
        }
    )


def _instructions(measured: Measured) -> pd.DataFrame:
    """Non-configuration instructions of the lanes, with the layer_type of their workload."""
    ins = measured.instructions
    keep = ins["queue"].isin(LANES).to_numpy() & ~ins["name"].str.contains("_cfg", regex=False).to_numpy()
    shown = ins[keep]
    kinds = dict(zip(measured.workloads["workload_id"], measured.workloads["layer_type"].astype(str)))
    # Object dtype: with no workload joined (another IR's trace) the mapped column is all NaN floats.
    return shown.assign(kind=shown["wkl"].map(kinds).astype(object).fillna("?").astype(str))


def measured_timeline_figure(
    measured: Measured, window: tuple[float, float] | None = None, zoomable: bool = True
) -> go.Figure:
    """The estimated timeline over the measured lanes, gaps shaded and the longest waits labelled."""
    instructions = _instructions(measured)
    estimated = _estimated(measured)
    if instructions.empty:
        return empty_figure("the trace has no instruction to draw")
    rows = _rows()
    kinds = sorted(set(estimated["kind"]) | set(instructions["kind"]) - {"?"})
    colors = {k: LAYER_TYPE_COLORS[i % len(LAYER_TYPE_COLORS)] for i, k in enumerate(kinds)}
    lo, hi = window or (0.0, float(max(measured.makespan, estimated["end"].max() if len(estimated) else 0)))
    in_view = instructions[(instructions["end"] >= lo) & (instructions["start"] <= hi)]
    fig = go.Figure()
    fig.add_trace(_gaps(measured, lo, hi, rows))
    if len(in_view) + len(estimated) > MAX_BARS:
        fig.add_trace(_busy_bins(in_view, estimated, rows, lo, hi))
        where = "zoom in for single instructions" if zoomable else "irtools serve shows them when zoomed"
        note_above(fig, f"{len(in_view):,} instructions: busy share per bin; {where}")
    else:
        for trace in _estimate_bars(estimated, rows[ESTIMATE], colors):
            fig.add_trace(trace)
        for trace in _lane_bars(in_view, rows, colors):
            fig.add_trace(trace)
    fig.add_trace(_wait_labels(measured, rows))
    ticks = sorted(rows.items(), key=lambda item: item[1])
    fig.update_yaxes(
        tickvals=[y for _, y in ticks],
        ticktext=[name for name, _ in ticks],
        range=[-0.6, len(rows) - 0.4],
        zeroline=False,
        showgrid=False,
    )
    fig.update_xaxes(
        title="cycles (the trace's unit is the IR's time unit)", rangemode="tozero", tickformat="~s"
    )
    if window is not None:
        fig.update_xaxes(range=list(window))
    summary = measured.summary()
    ratio = f" ({summary.ratio:.2f}x)" if summary.ratio else ""
    title = (
        f"Estimated vs measured (core 0): makespan {summary.estimated_makespan:,} estimated, "
        f"{summary.measured_makespan:,} measured{ratio}; compute idle {summary.idle_share:.0%} (shaded)"
    )
    fig.update_layout(barmode="overlay", showlegend=True)
    finish_layout(fig, title, 420)
    # Nine entries wrap into a second row above the plot at 1400 px, over the estimate lane: a
    # column right of the lanes never meets them (Plotly widens the right margin for it).
    fig.update_layout(legend={"orientation": "v", "x": 1.01, "xanchor": "left", "y": 1.0, "yanchor": "top"})
    return fig


def _estimate_bars(estimated: pd.DataFrame, y: int, colors: dict[str, str]) -> list[go.Bar]:
    bars = []
    for kind, group in estimated.groupby("kind", sort=True):
        bars.append(
            go.Bar(
                name=f"{html.escape(str(kind), quote=False)} (estimate)",
                orientation="h",
                base=group["start"].to_numpy(),
                x=(group["end"] - group["start"]).to_numpy(),
                y=np.full(len(group), y),
                width=0.7,
                customdata=np.column_stack([group["label"], group["wkl"], group["start"], group["end"]]),
                hovertemplate="<b>%{customdata[0]}</b>, workload %{customdata[1]}<br>estimated "
                "%{customdata[2]:,} - %{customdata[3]:,}<extra></extra>",
                marker={"color": colors[str(kind)], "opacity": 0.55},
                legendgroup=str(kind),
            )
        )
    return bars


def _lane_bars(instructions: pd.DataFrame, rows: dict[str, int], colors: dict[str, str]) -> list[go.Bar]:
    """Compute lanes colored by the workload's layer_type, DMA lanes in greys."""
    bars = []
    dma = instructions["queue"].isin(list(DMA_COLORS)).to_numpy()
    groups: list[tuple[str, str, pd.DataFrame]] = [
        (f"{q} data moves", DMA_COLORS[q], instructions[dma & (instructions["queue"] == q).to_numpy()])
        for q in DMA_COLORS
    ]
    groups += [
        (
            f"{html.escape(k, quote=False)} (measured)",
            colors.get(k, "#999"),
            instructions[~dma & (instructions["kind"] == k).to_numpy()],
        )
        for k in sorted(set(instructions["kind"]))
    ]
    for name, color, group in groups:
        if group.empty:
            continue
        size = group["bytes"].astype("float64").fillna(0).to_numpy()
        bars.append(
            go.Bar(
                name=name,
                orientation="h",
                base=group["start"].to_numpy(),
                x=(group["end"] - group["start"]).to_numpy(),
                y=group["queue"].map(rows).to_numpy(),
                width=0.7,
                customdata=np.column_stack(
                    [
                        escape(group["name"]),
                        group["wkl"],
                        group["tile"],
                        group["start"],
                        group["end"],
                        size,
                        group["line"],
                    ]
                ),
                hovertemplate="<b>%{customdata[0]}</b> (line %{customdata[6]}), wkl %{customdata[1]}, tile "
                "%{customdata[2]}<br>%{customdata[3]:,} - %{customdata[4]:,}<br>%{customdata[5]:,.0f} bytes"
                "<extra></extra>",
                marker={"color": color, "line": {"width": 0}},
            )
        )
    return bars


def _gaps(measured: Measured, lo: float, hi: float, rows: dict[str, int]) -> go.Scatter:
    """Compute idle windows as rectangles across the measured lanes, one filled trace.

    Windows narrower than a bin are left out when zoomed far out: they would be invisible anyway.
    """
    narrowest = (hi - lo) / TIME_BINS / 4
    top = rows[LANES[0]] + 0.45
    xs: list[Any] = []
    ys: list[Any] = []
    for start, end in measured.idle_windows:
        if end < lo or start > hi or end - start < narrowest:
            continue
        xs += [start, end, end, start, start, None]
        ys += [-0.45, -0.45, top, top, -0.45, None]
    return go.Scatter(
        x=xs,
        y=ys,
        fill="toself",
        fillcolor=GAP_FILL,
        line={"width": 0},
        mode="lines",
        name="compute idle",
        hoverinfo="skip",
    )


def _wait_labels(measured: Measured, rows: dict[str, int]) -> go.Scatter:
    """The longest waits, numbered, inside their gap on the compute lanes (empty then), cause on hover.

    Neighbours in time alternate between the PE and the VP lane so that labels of close gaps do not
    overlap.
    """
    waits = measured.top_waits(LABELLED_WAITS)
    order = sorted(range(len(waits)), key=lambda n: waits[n].start)
    lane = {n: rows["PE"] if i % 2 == 0 else rows["VP"] for i, n in enumerate(order)}
    return go.Scatter(
        x=[w.start - w.gap / 2 for w in waits],
        y=[lane[n] for n in range(len(waits))],
        mode="text",
        text=[f"<b>wait {n}</b>" for n in range(1, len(waits) + 1)],
        textfont={"color": CONFLICT_COLOR, "size": 12},
        customdata=[
            [
                html.escape(w.layer_name, quote=False),
                w.workload_id,
                html.escape(w.critical_wait, quote=False),
                w.gap,
            ]
            for w in waits
        ],
        hovertemplate="%{customdata[3]:,} cycles before workload %{customdata[1]} (%{customdata[0]})"
        "<br>waiting on %{customdata[2]}<extra></extra>",
        name="longest waits (hover)",
        cliponaxis=False,
    )


def _busy_bins(
    instructions: pd.DataFrame, estimated: pd.DataFrame, rows: dict[str, int], lo: float, hi: float
) -> go.Heatmap:
    """Busy share per lane and time bin: within a lane instructions do not overlap, so the time
    busy before x is a prefix sum minus what the last one started runs past x (linear)."""
    edges = np.linspace(lo, hi, TIME_BINS + 1)
    z = np.full((len(rows), TIME_BINS), np.nan)
    lanes = {name: instructions[instructions["queue"] == name] for name in LANES}
    lanes[ESTIMATE] = estimated
    for name, group in lanes.items():
        if group.empty:
            continue
        order = np.argsort(group["start"].to_numpy(float), kind="stable")
        start = group["start"].to_numpy(float)[order]
        end = group["end"].to_numpy(float)[order]
        done = np.concatenate([[0.0], np.cumsum(end - start)])
        started = np.searchsorted(start, edges, side="right")
        overrun = np.where(started > 0, np.maximum(end[np.maximum(started - 1, 0)] - edges, 0.0), 0.0)
        share = np.diff(done[started] - overrun) / max((hi - lo) / TIME_BINS, 1e-9)
        z[rows[name]] = np.where(share > 0, np.clip(share, 0, 1), np.nan)
    return go.Heatmap(
        z=z,
        x=(edges[:-1] + edges[1:]) / 2,
        y=list(range(len(rows))),
        zmin=0,
        zmax=1,
        colorscale=[[0, "#dfe7f2"], [1, "#2f4b7c"]],
        showscale=False,
        hovertemplate="cycles ~%{x:,.0f}: busy %{z:.0%}<extra></extra>",
        name="busy share",
        ygap=6,
    )


def slot_figure(measured: Measured) -> go.Figure:
    """Per workload, slot / estimate split into busy and waiting (per layer above MAX_BARS workloads)."""
    table = measured.workloads[measured.workloads["start"].notna() & (measured.workloads["time"] > 0)]
    if table.empty:
        return empty_figure("no workload joined to the trace")
    per = "workload"
    if len(table) > MAX_BARS:
        table = measured.layers[measured.layers["time"] > 0]
        per = "layer"
    time = table["time"].to_numpy(float)
    x = list(range(len(table)))
    label = escape(table["layer_name"])
    ids = table["workload_id"].to_numpy() if per == "workload" else np.zeros(len(table), int)
    waits = table["critical_wait"] if per == "workload" else pd.Series([""] * len(table))
    custom = np.column_stack(
        [label, ids, table["time"], table["busy"], table["gap"], table["slot"], escape(waits)]
    )
    head = "<b>%{customdata[0]}</b>" + (", workload %{customdata[1]}" if per == "workload" else "")
    hover = (
        head + "<br>estimate %{customdata[2]:,}, busy %{customdata[3]:,}, waiting %{customdata[4]:,}"
        "<br>slot %{customdata[5]:,}"
        + ("<br>%{customdata[6]}" if per == "workload" else "")
        + "<extra></extra>"
    )
    fig = go.Figure(
        [
            go.Bar(
                name="busy / estimate",
                x=x,
                y=table["busy"].to_numpy(float) / time,
                customdata=custom,
                hovertemplate=hover,
                marker={"color": LAYER_TYPE_COLORS[0], "line": {"width": 0}},
            ),
            go.Bar(
                name="waiting / estimate",
                x=x,
                y=table["gap"].to_numpy(float) / time,
                customdata=custom,
                hovertemplate=hover,
                marker={"color": CONFLICT_COLOR, "line": {"width": 0}},
            ),
        ]
    )
    ratio = table["slot"].to_numpy(float) / time
    # A tiny workload behind a long wait can reach 20x and flatten every other bar: cut the axis
    # and write the value on the bars that pass it.
    cap = max(2.0, float(np.nanpercentile(ratio, 95)) * 1.25)
    over = np.flatnonzero(ratio > cap)
    if len(over) > MAX_CAPPED_LABELS:
        fig.update_yaxes(range=[0, cap])
        note_above(fig, f"{len(over):,} bars pass the axis (up to {np.nanmax(ratio):.1f}x)")
    elif len(over):
        fig.add_trace(
            go.Scatter(
                x=over,
                y=cap * np.where(np.arange(len(over)) % 2 == 0, 0.97, 0.89),  # neighbours do not overlap
                mode="text",
                text=[f"{ratio[i]:.1f}x" for i in over],
                textposition="bottom center",
                textfont={"size": 10, "color": "#111"},
                hoverinfo="skip",
                showlegend=False,
            )
        )
        fig.update_yaxes(range=[0, cap])
    fig.add_hline(y=1.0, line={"color": "#555", "dash": "dot", "width": 1})
    fig.update_layout(barmode="stack", bargap=0.15 if len(table) <= 200 else 0.0)
    fig.update_yaxes(title="slot / estimated time", rangemode="tozero")
    fig.update_xaxes(
        title=f"{per} in program order" + (" (hover for names)" if len(table) > 40 else ""),
        tickvals=x if len(table) <= 40 else None,
        ticktext=label if len(table) <= 40 else None,
    )
    corr = measured.summary().slot_time_correlation
    note = f"; correlation of slot with estimate {corr:.2f}" if corr is not None else ""
    return finish_layout(fig, f"Per {per}: slot (busy + waiting) / estimated time{note}", 340)


def load_measured(entry_analysis: Any, trace_path: str | Path) -> Measured | None:
    """The IR joined to the trace at `trace_path`; None when the file holds no instruction."""
    from irtools.trace import measure, read_trace

    trace = read_trace(trace_path)
    return measure(entry_analysis, trace) if trace.instructions else None


CAVEAT = (
    "Compute durations in the trace reproduce the IR's estimate by construction (each tile lasts "
    "round(time / tiles) + 20), so this comparison does not validate the estimate; what it measures is "
    "the waiting between workloads that the estimate leaves out, and which data moves were running then."
)
