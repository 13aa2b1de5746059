"""The per-core timeline (Gantt) from the analysis' timeline table."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dashboards.figures import (
    CRITICAL_COLOR,
    HIGHLIGHT_COLOR,
    LAYER_TYPE_COLORS,
    STALL_COLOR,
    WAIT_CYCLE_COLOR,
    Focus,
    empty_figure,
    escape,
    finish_layout,
    note_above,
)
from irtools.analysis.core_time import compute_end

MAX_ARROWS = 5_000
"""Cross-core transfer arrows drawn in the timeline at most."""
ARROWS_BY_DEFAULT = 300
"""Files with more cross-core transfers open with the arrows off (they cover the bars and slow each zoom)."""
MAX_BARS = 4_000
"""Above this many workloads in view, the timeline shows busy time per bin instead of bars."""
LEFT_MARGIN = 110
"""Left margin (px) of the timeline and of the counter tracks under it: wide enough for `core 78 (7,7)`."""
TIME_BINS = 600
"""Time bins of the aggregated timeline: about one per two pixels of a wide screen."""
MAX_HANDOFFS = 200
"""Core-to-core steps of the critical path drawn on the aggregated timeline at most (zoom in for more)."""
CRITICAL_AXIS = "y2"
"""The aggregated critical path's axis: linear, laid over the category axis's rows (row i at i)."""
STRIP_BANDS = (0, 1, 2, 1, 0)
"""A row's fifths, bottom up, in the critical path's strip: clear, black, yellow, black, clear."""


def timeline_figure(
    timeline: pd.DataFrame,
    model: str,
    *,
    core_transfers: pd.DataFrame | None = None,
    layers: Sequence[str] | None = None,
    focus: Focus | None = None,
    window: tuple[float, float] | None = None,
    zoomable: bool = True,
    wait_cycles: Sequence[Sequence[tuple[int, int]]] = (),
    zoom_to_focus: bool = True,
) -> go.Figure:
    """A Gantt chart: one row per core, workloads as bars colored by layer_type.

    `core_transfers` adds an arrow per cross-core transfer (with `layers` or `focus`, only those
    touching them); `layers` dims every other layer; `focus` outlines workloads and, with
    `zoom_to_focus`, zooms to the focused one unless `window` (cycles) says which part of the
    schedule to show. The figure
    holds every bar whatever the window, so a reset or a pan finds them all. With more than
    MAX_BARS workloads, each core's row shows its busy time per time bin for the window instead,
    colored by the layer type that fills most of the bin: thousands of SVG bars take the browser
    seconds to draw. In the dashboard (`zoomable`), zooming in brings the bars back; a static
    figure says where to see them. `wait_cycles` ((core_id, position) lists, GIR502) draws the
    workloads a model cannot place after each core's last placed one, with the cycle's waits as
    arrows.
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
    if (
        zoom_to_focus
        and window is None
        and focus
        and focus.position is not None
        and focus.core_id is not None
    ):
        window = focus_window(rows, model, focus.core_id, focus.position)
    many = len(placed) > MAX_BARS
    shown = placed
    if many and window is not None:
        shown = placed[(placed["end"] > window[0]) & (placed["start"] < window[1])]
    makespan = rows["end"].max() if rows["start"].notna().all() else None
    if len(shown) > MAX_BARS:
        lo, hi = window or (0.0, float(placed["end"].max()))
        selected = shown if not layers else shown[shown["layer_name"].isin(list(layers))]
        # The bins hide single workloads, not the chain that sets the makespan: its strip, its
        # hand-offs from core to core and what it runs in each bin (on hover) are drawn over them.
        critical = shown[shown["critical"].to_numpy(bool)]
        edges = np.linspace(lo, hi, TIME_BINS + 1)
        on_path, path_text = _critical_bins(critical, labels, edges)
        for trace in _busy_map(selected, kinds, labels, edges, path_text):
            fig.add_trace(trace)
        _row_gaps(fig, len(cores))
        where = "zoom in for single ones" if zoomable else "irtools serve shows single ones when zoomed"
        if not critical.empty:
            moves = _moves(critical)
            fig.add_trace(_critical_strips(on_path, edges))
            # A few hand-offs show the chain; thousands (a chain hopping cores every step) cover the bins.
            if moves <= MAX_HANDOFFS:
                fig.add_trace(_handoffs(critical, labels))
            else:
                where += f"; the critical path (yellow) changes core {moves:,} times: zoom in to follow it"
        note_above(fig, f"{len(shown):,} workloads: busy time per bin (pale: under half busy); {where}")
    else:
        for trace in _bars(shown, kinds, labels, layers):
            fig.add_trace(trace)
        critical = shown[shown["critical"].to_numpy(bool)]
        if not critical.empty:
            fig.add_traces(_critical_path(critical, labels))
        if core_transfers is not None and not core_transfers.empty:
            edges = _selected_edges(core_transfers, shown, layers, focus)
            if not edges.empty:
                fig.add_trace(_arrows(shown, edges, labels, forward_only=model == "sequential"))
        if focus and focus.workloads:
            fig.add_trace(_focus_bars(shown, focus.workloads, labels))
    unplaced = rows[rows["start"].isna()]
    if not unplaced.empty:
        selected = focus.workloads if focus else frozenset()
        for trace in _unplaced(unplaced, placed, labels, wait_cycles, selected):
            fig.add_trace(trace)
    if makespan is not None:
        fig.add_vline(x=int(makespan), line={"color": "#555", "dash": "dot", "width": 1})
    title = f"Per-core timeline ({model})"
    title += (
        f": makespan {int(makespan):,} cycles"
        if makespan is not None
        else f": {plural(len(unplaced), 'workload')} cannot be scheduled (GIR502)"
    )
    fig.update_layout(barmode="overlay", bargap=0.35, showlegend=True)  # also for one layer type in view
    # Every core gets its row, also one whose workloads cannot be placed.
    rows_bottom_up = _rows_bottom_up(labels)
    rows_range = [-0.5, len(cores) - 0.5]
    fig.update_yaxes(
        categoryorder="array", categoryarray=[labels[c] for c in rows_bottom_up], range=rows_range, title=None
    )
    if any(trace.yaxis == CRITICAL_AXIS for trace in fig.data):
        # The strips' axis keeps the rows' range: a zoom of the plot area moves both alike.
        strips_axis = {"overlaying": "y", "type": "linear", "range": rows_range, "visible": False}
        fig.update_layout({"yaxis" + CRITICAL_AXIS[1:]: strips_axis})
    if focus and focus.core_id in labels:  # a core picked (on the mesh): its row stands out
        row = rows_bottom_up[focus.core_id]
        fig.add_hrect(
            y0=row - 0.5, y1=row + 0.5, fillcolor="#ffe9a8", opacity=0.45, line_width=0, layer="below"
        )
    fig.update_xaxes(title="cycles", rangemode="tozero", tickformat="~s", hoverformat=",.0f")
    if window is not None:
        fig.update_xaxes(range=list(window))
    # Past 16 cores rows get thinner with smaller labels, past 32 thinner still (64 rows: 830 px, not
    # 1,340), so a chip's timeline starts on the first screen under the mesh and stays one scroll.
    row = 34 if len(cores) <= 16 else 20 if len(cores) <= 32 else 12
    if row < 34:
        fig.update_yaxes(tickfont={"size": 10 if row == 20 else 9})
    fig = finish_layout(fig, title, max(260, 60 + row * len(cores)))
    # A fixed left margin, as the counter tracks under it have: their cycles axes line up.
    fig.update_layout(margin={"l": LEFT_MARGIN})
    return fig


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


def plural(count: int, noun: str) -> str:
    """'1 error', '2 errors', '1,200 workloads'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def focus_window(
    timeline: pd.DataFrame, model: str, core_id: int, position: int
) -> tuple[float, float] | None:
    """Cycles to show around one workload: itself and its length on each side."""
    rows = timeline[
        (timeline["model"] == model) & (timeline["core_id"] == core_id) & (timeline["position"] == position)
    ]
    if rows.empty or rows["start"].isna().iloc[0]:
        return None
    s, e = int(rows["start"].iloc[0]), int(rows["end"].iloc[0])
    pad = max(e - s, 1)
    return (float(max(s - pad, 0)), float(e + pad))


def aggregated(timeline: pd.DataFrame, model: str) -> bool:
    """Whether the whole schedule has too many workloads for bars (so zooming changes the figure)."""
    rows = timeline[timeline["model"] == model]
    return int(rows["start"].notna().sum()) > MAX_BARS


def _bars(
    placed: pd.DataFrame, kinds: list[str], labels: dict[int, str], layers: Sequence[str] | None
) -> list[go.Bar]:
    start = placed["start"].astype("int64").to_numpy()
    duration = placed["end"].astype("int64").to_numpy() - start  # the noc model stretches a workload
    # Under noc a workload computes its IR time, then holds its core stalled on the NoC: the bar's
    # layer colour covers the compute, a pink hatched bar the stall (irtools.analysis.core_time).
    computed = np.round(compute_end(placed)).astype("int64") - start
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
            _bound_text(placed),  # escapes the link labels itself
        ]
    )
    hover = (
        "<b>%{customdata[0]}</b> (%{customdata[8]})<br>%{y}, workload %{customdata[1]} "
        "(position %{customdata[2]})<br>time %{customdata[3]:,} cycles: %{customdata[4]:,} - %{customdata[5]:,}"
        "<br>reads transfers: %{customdata[6]}<br>writes transfers: %{customdata[7]}%{customdata[9]}<extra></extra>"
    )
    types = placed["layer_type"].astype(str).to_numpy()
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
                x=computed[mask],
                y=[labels[c] for c in placed["core_id"].to_numpy()[mask]],
                customdata=custom[mask],
                hovertemplate=hover,
                marker={
                    "color": LAYER_TYPE_COLORS[i % len(LAYER_TYPE_COLORS)],
                    "opacity": np.where(keep[mask], 1.0, 0.2),
                    "line": {"width": 0},
                },
            )
        )
    stalled = duration > computed
    if stalled.any():
        bars.append(
            go.Bar(
                name="NoC-stalled",
                orientation="h",
                base=(start + computed)[stalled],
                x=(duration - computed)[stalled],
                y=[labels[c] for c in placed["core_id"].to_numpy()[stalled]],
                customdata=np.column_stack([custom[stalled], (duration - computed)[stalled]]),
                hovertemplate="<b>%{customdata[0]}</b>: stalled on the NoC %{customdata[10]:,} cycles<br>"
                "%{y}, workload %{customdata[1]} (position %{customdata[2]})%{customdata[9]}<extra></extra>",
                marker={
                    "color": STALL_COLOR,
                    "opacity": np.where(keep[stalled], 0.85, 0.2),
                    "line": {"width": 0},
                    "pattern": {"shape": "/", "fgcolor": "white", "size": 6, "solidity": 0.3},
                },
            )
        )
    return bars


def _bound_text(placed: pd.DataFrame) -> list[str]:
    """Per bar under the noc model: what bounds it (its own time, or the NoC and on which link); else ""."""
    if "noc_time" not in placed or placed["noc_time"].isna().all():
        return [""] * len(placed)
    texts = [
        ""
        if pd.isna(noc)
        else f"<br>bound: NoC, {int(noc):,} cycles on {html.escape(str(link), quote=False)} (own time {int(own):,})"
        if noc > own
        else f"<br>bound: compute (NoC {int(noc):,} cycles on {html.escape(str(link), quote=False)})"
        for noc, own, link in zip(placed["noc_time"], placed["time"], placed["noc_link"])
    ]
    return texts


def _busy_map(
    placed: pd.DataFrame,
    kinds: list[str],
    labels: dict[int, str],
    edges: np.ndarray,
    path_text: np.ndarray,
) -> list[go.BaseTraceType]:
    """Per core and time bin (between `edges`): the busy share, colored by the layer type busiest in
    the bin, and on hover what the critical path runs there (`path_text`, per row and bin: "" where
    it does not pass).

    A core runs one workload at a time, so the busy time before x is a prefix sum over the
    workloads started before x, minus what the last of them runs past x: one searchsorted per
    (core, layer type), linear in the workloads.
    """
    rows = _rows_bottom_up(labels)
    busy = np.zeros((len(kinds), len(rows), TIME_BINS))
    stall = np.zeros((len(rows), TIME_BINS))
    types = {kind: i for i, kind in enumerate(kinds)}
    # Busy is compute: under noc a workload's stall on the NoC is counted apart (core_time.compute_end).
    placed = placed.assign(computed=compute_end(placed))
    for (core, kind), group in placed.groupby(["core_id", placed["layer_type"].astype(str)]):
        order = np.argsort(group["start"].to_numpy(float))
        start = group["start"].to_numpy(float)[order]
        busy[types[str(kind)], rows[core]] = _covered(start, group["computed"].to_numpy(float)[order], edges)
        stall[rows[core]] += _covered(
            group["computed"].to_numpy(float)[order], group["end"].to_numpy(float)[order], edges
        )
    total = busy.sum(axis=0)
    width = max((edges[-1] - edges[0]) / TIME_BINS, 1e-9)
    share = total / width
    stall_share = stall / width
    strongest = busy.argmax(axis=0)
    # Colors 0..k-1: the layer type's color; k..2k-1: its pale version, for bins under half busy;
    # 2k: stalled on the NoC more than computing.
    z = np.where(total > 0, strongest + np.where(share < 0.5, len(kinds), 0), np.nan)
    z = np.where((stall > total) & (stall > 0), 2 * len(kinds), z)
    colors = [LAYER_TYPE_COLORS[i % len(LAYER_TYPE_COLORS)] for i in range(len(kinds))]
    palette = colors + [_pale(c) for c in colors] + [STALL_COLOR]
    scale = []
    for i, color in enumerate(palette):
        scale += [[i / len(palette), color], [(i + 1) / len(palette), color]]
    names = np.array([html.escape(k, quote=False) for k in kinds], dtype=object)
    # The hover's shares in float32, the stall's only where a model stalls: a 64-core view sent 0.8 MB of
    # float64 pairs for them (four times its colours), on every model switch and reset.
    stalled = bool(stall.any())
    shares = np.stack([share, stall_share], axis=-1) if stalled else share
    traces: list[go.BaseTraceType] = [
        go.Heatmap(
            z=z.astype(np.float32),  # small integers and gaps: half the bytes of float64 to the browser
            x=(edges[:-1] + edges[1:]) / 2,
            y=[labels[core] for core in rows],
            zmin=-0.5,
            zmax=len(palette) - 0.5,
            colorscale=scale,
            showscale=False,
            customdata=np.round(shares, 3).astype(np.float32),
            text=names[strongest] + path_text,
            hovertemplate=(
                "%{y}, cycles ~%{x:,.0f}<br>computing %{customdata[0]:.0%}, mostly %{text}<br>NoC-stalled %{customdata[1]:.0%}"
                if stalled
                else "%{y}, cycles ~%{x:,.0f}<br>computing %{customdata:.0%}, mostly %{text}"
            )
            + "<extra></extra>",
            name="busy time",
            xgap=0,
            ygap=0,  # the rows' gaps are lines over it (_row_gaps)
        )
    ]
    legend = list(zip(kinds, colors, strict=True))
    if stalled:
        legend.append(("NoC-stalled (more than computing)", STALL_COLOR))
    for kind, color in legend:  # legend entries, as the bars have
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


def _row_gaps(fig: go.Figure, rows: int) -> None:
    """White lines between the busy map's rows, where a ygap drew them. Chromium paints a heatmap with
    gaps brick by brick into a canvas the size of the plot (0.26-0.41 s for 64 cores x 600 bins), one
    without at a pixel per bin, scaled up (0.14 s): on every draw, zoom and timing-model switch."""
    gap = {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "layer": "above"}
    gap["line"] = {"color": "white", "width": 4}
    fig.update_layout(
        shapes=[*fig.layout.shapes, *({**gap, "y0": r + 0.5, "y1": r + 0.5} for r in range(rows - 1))]
    )


def _rows_bottom_up(labels: dict[int, str]) -> dict[int, int]:
    """Each core's row in the aggregated heatmaps, as the category axis counts them: from the bottom.
    Plotly looks a heatmap cell's hover text and data up by the row's place on a category axis, so
    rows in any other order hover with another core's numbers."""
    return {core: i for i, core in enumerate(reversed(labels))}


def _covered(start: np.ndarray, end: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Cycles of the disjoint intervals [start, end) (sorted by start) in each bin between `edges`: a
    prefix sum over the intervals started before each edge, minus what the last of them runs past it."""
    done = np.concatenate([[0.0], np.cumsum(end - start)])
    started = np.searchsorted(start, edges, side="right")
    overrun = np.where(started > 0, np.maximum(end[started - 1] - edges, 0.0), 0.0)
    return np.diff(done[started] - overrun)


def _pale(color: str) -> str:
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(round(v + (255 - v) * 0.6) for v in (r, g, b)))


def _critical_path(critical: pd.DataFrame, labels: dict[int, str]) -> list[go.Scatter]:
    """A yellow-on-black rail through the middle of each critical workload: visible on any bar
    color, and runs of short workloads stay apart (an outline merged them into black blocks)."""
    n = len(critical)
    xs = np.empty(3 * n, dtype=object)
    ys = np.empty(3 * n, dtype=object)
    xs[0::3] = critical["start"].astype("int64").to_numpy()
    xs[1::3] = critical["end"].astype("int64").to_numpy()
    ys[0::3] = ys[1::3] = [labels[c] for c in critical["core_id"]]
    return [
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines",
            name="critical path",
            legendgroup="critical",
            line={"color": color, "width": width},
            hoverinfo="skip",
            showlegend=legend,
        )
        for color, width, legend in (("#111111", 6, False), (CRITICAL_COLOR, 2.5, True))
    ]


def _critical_bins(
    critical: pd.DataFrame, labels: dict[int, str], edges: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per row (`_rows_bottom_up`) and time bin between `edges`: whether the critical path passes,
    and what it runs there as the busy map's hover adds it ("" where it does not pass)."""
    rows = _rows_bottom_up(labels)
    on_path = np.zeros((len(rows), len(edges) - 1), dtype=bool)
    text = np.full(on_path.shape, "", dtype=object)
    for core, group in critical.groupby("core_id"):
        chain = group.sort_values("start")  # a core runs one workload at a time
        start, end = chain["start"].to_numpy(float), chain["end"].to_numpy(float)
        covered = _covered(start, end, edges)
        # The workloads in bin b: from the first ending after its left edge to the last starting
        # before its right edge.
        first = np.searchsorted(end, edges[:-1], side="right")
        last = np.searchsorted(start, edges[1:], side="left") - 1
        names = escape(chain["layer_name"])
        row = rows[core]
        for b in np.flatnonzero(covered > 0):
            count = last[b] - first[b] + 1
            text[row, b] = f"<br>critical path: <b>{names[first[b]]}</b>" + (
                f" … <b>{names[last[b]]}</b> ({count:,} workloads)" if count > 1 else ""
            )
            on_path[row, b] = True
    return on_path, text


def _critical_strips(on_path: np.ndarray, edges: np.ndarray) -> go.Heatmap:
    """The critical path over the bins between `edges` (`on_path`, rows bottom up): a yellow-on-black
    strip through the middle of each row where it passes, visible on any bin's color.

    One heatmap of a pixel per cell: as lines and a dot per workload (thousands of SVG points on a
    64-core file) the browser redrew them for one to two seconds on every zoom, and as strips
    narrowed by a `ygap` Plotly painted them cell by cell (95-150 ms of every redraw). Its rows are
    fifths of the timeline's rows, on an evenly spaced linear axis laid over the category one
    (`CRITICAL_AXIS`); its hover is the busy map's.
    """
    rows, bins = on_path.shape
    bands = np.array(STRIP_BANDS, dtype=np.uint8)
    z = (on_path[:, None, :] * bands[None, :, None]).reshape(rows * len(bands), bins)
    clear, black, yellow = "rgba(0,0,0,0)", "#111111", CRITICAL_COLOR
    scale = [[0, clear], [1 / 3, clear], [1 / 3, black], [2 / 3, black], [2 / 3, yellow], [1, yellow]]
    return go.Heatmap(
        z=z,  # uint8: a quarter of float32's bytes to the browser, and 0 (clear) where nothing runs
        x0=(edges[0] + edges[1]) / 2,
        dx=edges[1] - edges[0],  # even bins, as the rows: Plotly then draws a pixel per cell, scaled
        y0=-0.5 + 0.5 / len(bands),
        dy=1 / len(bands),
        yaxis=CRITICAL_AXIS,
        zmin=0,
        zmax=2,
        colorscale=scale,
        showscale=False,
        hoverinfo="skip",
        name="critical path",
        legendgroup="critical",
        showlegend=True,
    )


def _moves(critical: pd.DataFrame) -> int:
    """How many times the critical chain goes from one core to another."""
    core = critical.sort_values(["start", "end"])["core_id"].to_numpy()
    return int(np.count_nonzero(core[1:] != core[:-1]))


def _handoffs(critical: pd.DataFrame, labels: dict[int, str]) -> go.Scatter:
    """The critical chain's steps from core to core: end of one workload -> start of the next, with an arrowhead."""
    chain = critical.sort_values(["start", "end"])
    core = chain["core_id"].to_numpy()
    moves = np.flatnonzero(core[1:] != core[:-1])
    n = len(moves)
    xs = np.empty(3 * n, dtype=object)
    ys = np.empty(3 * n, dtype=object)
    xs[0::3] = chain["end"].astype("int64").to_numpy()[moves]
    xs[1::3] = chain["start"].astype("int64").to_numpy()[moves + 1]
    ys[0::3] = [labels[c] for c in core[moves]]
    ys[1::3] = [labels[c] for c in core[moves + 1]]
    return go.Scatter(
        x=xs,
        y=ys,
        mode="lines+markers",
        name="critical path: core to core",
        legendgroup="critical",
        line={"color": "#111111", "width": 1.5},
        marker={
            "symbol": "arrow",
            "angleref": "previous",
            "size": np.tile([0, 10, 0], n),
            "color": "#111111",
        },
        hoverinfo="skip",
        showlegend=False,
    )


def _selected_edges(
    edges: pd.DataFrame, shown: pd.DataFrame, layers: Sequence[str] | None, focus: Focus | None
) -> pd.DataFrame:
    """The transfers to draw: with a layer filter or focused workloads, only those touching them."""
    if not layers and not (focus and focus.workloads):
        return edges
    keep = set(focus.workloads) if focus else set()
    if layers:
        picked = shown[shown["layer_name"].isin(list(layers))]
        keep |= set(zip(picked["core_id"].tolist(), picked["position"].tolist()))
    src = pd.Series(list(zip(edges["src_core"], edges["src_position"])), index=edges.index).isin(keep)
    dst = pd.Series(list(zip(edges["dst_core"], edges["dst_position"])), index=edges.index).isin(keep)
    return edges[src | dst]


def _unplaced(
    unplaced: pd.DataFrame,
    placed: pd.DataFrame,
    labels: dict[int, str],
    cycles: Sequence[Sequence[tuple[int, int]]],
    selected: frozenset[tuple[int, int]] = frozenset(),
) -> list[go.BaseTraceType]:
    """Workloads a model cannot start, hatched after their core's last placed workload, in program
    order; the wait cycle's cross-core waits as arrows from the awaited workload's end to the
    waiting one's start (pointing back in time: that is the deadlock)."""
    ends = placed.groupby("core_id")["end"].max()
    rows = unplaced.sort_values(["core_id", "position"])
    offset = rows.groupby("core_id")["time"].cumsum() - rows["time"]
    start = rows["core_id"].map(ends).fillna(0).astype("int64").to_numpy() + offset.to_numpy("int64")
    end = start + rows["time"].to_numpy("int64")
    # A selected one (say the GIR502 finding's workload) gets the black selection outline.
    picked = np.array([k in selected for k in zip(rows["core_id"], rows["position"])], bool)
    traces: list[go.BaseTraceType] = [
        go.Bar(
            name="cannot start (GIR502)",
            orientation="h",
            base=start,
            x=rows["time"].to_numpy(),
            y=[labels[c] for c in rows["core_id"]],
            customdata=np.column_stack(
                [escape(rows["layer_name"]), rows["workload_id"].to_numpy(), rows["position"].to_numpy()]
            ),
            hovertemplate="<b>%{customdata[0]}</b><br>%{y}, workload %{customdata[1]} (position "
            "%{customdata[2]})<br>cannot start: waits on a cycle (GIR502); drawn after the core's "
            "last placed workload<extra></extra>",
            marker={
                "color": "rgba(255,255,255,0)",
                "line": {
                    "color": np.where(picked, HIGHLIGHT_COLOR, WAIT_CYCLE_COLOR),
                    "width": np.where(picked, 3.0, 1.5),
                },
                "pattern": {"shape": "/", "fgcolor": WAIT_CYCLE_COLOR, "size": 8, "solidity": 0.25},
            },
        )
    ]
    where = {(c, p): (s, e) for c, p, s, e in zip(rows["core_id"], rows["position"], start, end, strict=True)}
    xs: list[object] = []
    ys: list[object] = []
    for cycle in cycles:
        for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=True):
            if a in where and b in where and a[0] != b[0]:  # program order on a core needs no arrow
                xs += [where[a][1], where[b][0], None]
                ys += [labels[a[0]], labels[b[0]], None]
    if xs:
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines+markers",
                name="wait cycle (GIR502)",
                line={"color": WAIT_CYCLE_COLOR, "width": 2.5},
                marker={"symbol": "arrow", "angleref": "previous", "size": [0, 12, 0] * (len(xs) // 3)},
                hoverinfo="skip",
            )
        )
    return traces


def _arrows(
    placed: pd.DataFrame, edges: pd.DataFrame, labels: dict[int, str], forward_only: bool = False
) -> go.Scatter:
    """Producer end -> consumer start, one NaN-separated line trace with arrowheads.

    At most MAX_ARROWS: beyond a few thousand they are noise on screen and megabytes in the page.
    `forward_only` leaves out arrows pointing back in time: the sequential model ignores the
    waits, so a consumer there may start before its producer ends.
    """
    times = placed[["core_id", "position", "start", "end"]]
    src = times.rename(columns={"core_id": "src_core", "position": "src_position", "end": "x0"})
    dst = times.rename(columns={"core_id": "dst_core", "position": "dst_position", "start": "x1"})
    joined = edges.merge(src[["src_core", "src_position", "x0"]], on=["src_core", "src_position"]).merge(
        dst[["dst_core", "dst_position", "x1"]], on=["dst_core", "dst_position"]
    )
    if forward_only:
        joined = joined[joined["x1"] >= joined["x0"]]
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
