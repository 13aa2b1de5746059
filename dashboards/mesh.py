"""The mesh view: the chip's tiles coloured by a metric, the NoC links between them sized by their bytes.

Figures only: the numbers are `Analysis.tiles` and `Analysis.link_table` (irtools.analysis).
Row 0 is on top, as Gemini numbers the rows; the DRAM ports sit on the edge columns x = -1 and x = xlen.
Each direction of a link is its own segment, beside the other: east- and westbound above and below
the row's centre line, down- and upbound right and left of the column's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from dashboards.figures import empty_figure, escape, finish_layout, format_bytes, note_above
from irtools.analysis import Analysis
from irtools.analysis.tiles import METRICS, MeshShape, mesh_shape

TILE = 0.56
"""Tile side in mesh units: the rest of each unit is the gap the links run in."""
LINK_OFFSET = 0.11
LINK_WIDTHS = (1.5, 3.0, 5.0, 7.5, 10.0)
LINK_COLORS = ("#f7c99e", "#f3a35e", "#e8782a", "#c5520f", "#8c3405")
"""Links by their bytes against the busiest link, in five steps (width and colour together)."""
TILE_FIELDS = 9
"""customdata fields of a tile's marker (the core id first); a click tells tiles and links apart by it."""
LINK_FIELDS = 11
"""customdata fields of a link's marker (x, y, to_x, to_y last)."""
_OFFSETS = {
    "+x": (0.0, -LINK_OFFSET),
    "-x": (0.0, LINK_OFFSET),
    "+y": (LINK_OFFSET, 0.0),
    "-y": (-LINK_OFFSET, 0.0),
}
_SCALES = {
    "busy": "Blues",
    "waiting": "Reds",
    "l2": "Purples",
    "dram": "Greens",
    "sent": "Oranges",
    "received": "Oranges",
}


def metric_values(tiles: pd.DataFrame, metric: str) -> tuple[np.ndarray, str, bool]:
    """(values, colour-bar title, whether they are shares 0..1) of `metric` for each tile row."""
    if metric == "busy":
        return tiles["busy_share"].to_numpy(float), "busy share", True
    if metric == "waiting":
        return tiles["waiting_share"].to_numpy(float), "waiting share", True
    if metric == "l2":
        if tiles["l2_share"].notna().any():
            return tiles["l2_share"].to_numpy(float), "peak L2 / L2 size", True
        return (
            tiles["peak_l2_bytes"].astype("Float64").to_numpy(float, na_value=np.nan),
            "peak L2 bytes",
            False,
        )
    column = {"dram": "dram_bytes", "sent": "sent_bytes", "received": "received_bytes"}[metric]
    return tiles[column].to_numpy(float), METRICS[metric], False


def mesh_figure(
    tiles: pd.DataFrame,
    links: pd.DataFrame,
    shape: MeshShape,
    metric: str = "busy",
    *,
    scope: str = "",
    selected_core: int | None = None,
    bandwidth: int | None = None,
) -> go.Figure:
    """The tiles of `tiles` (Analysis.tiles) and the links of `links` (noc_links table) on the mesh.

    `scope` says what the numbers cover (the model and the cycles window), for the title.
    """
    if tiles.empty:
        return empty_figure("no core on the mesh")
    fig = go.Figure()
    for trace in _link_traces(links, bandwidth):
        fig.add_trace(trace)
    fig.add_trace(_ports(shape))
    values, label, share = metric_values(tiles, metric)
    marks, top = _tiles(tiles, values, label, share, metric, shape)
    fig.add_trace(marks)
    # Tiles are rectangles in mesh units (markers are sized in pixels and would cover the links),
    # set in one go: add_shape one at a time revalidates the whole list, quadratic in the cores.
    colors = sample_colorscale(_SCALES.get(metric, "Blues"), list(np.clip(np.nan_to_num(values) / top, 0, 1)))
    half = TILE / 2
    shapes: list[dict[str, Any]] = [
        {
            "type": "rect",
            "x0": x - half,
            "x1": x + half,
            "y0": y - half,
            "y1": y + half,
            "fillcolor": color,
            "line": {"color": "#777", "width": 1},
            "layer": "below",
        }
        for x, y, color in zip(tiles["x"].tolist(), tiles["y"].tolist(), colors, strict=True)
    ]
    if selected_core is not None and (tiles["core_id"] == selected_core).any():
        row = tiles[tiles["core_id"] == selected_core].iloc[0]
        pad = half + 0.05
        shapes.append(
            {
                "type": "rect",
                "x0": row["x"] - pad,
                "x1": row["x"] + pad,
                "y0": row["y"] - pad,
                "y1": row["y"] + pad,
                "line": {"color": "#111", "width": 3},
            }
        )
    fig.update_layout(shapes=shapes)
    fig.update_xaxes(
        range=[-1.6, shape.xlen + 0.6],
        tickvals=list(range(-1, shape.xlen + 1)),
        ticktext=["DRAM W", *[str(x) for x in range(shape.xlen)], "DRAM E"],
        showgrid=False,
        zeroline=False,
        title="x (mesh column)",
    )
    fig.update_yaxes(
        range=[shape.ylen - 0.4, -0.6],
        tickvals=list(range(shape.ylen)),
        showgrid=False,
        zeroline=False,
        title="y (row)",
        scaleanchor="x",
        scaleratio=1,
    )
    title = f"Mesh {shape.xlen}x{shape.ylen}: tiles by {METRICS[metric]}" + (f" ({scope})" if scope else "")
    fig.update_layout(showlegend=False, plot_bgcolor="white", clickmode="event")
    finish_layout(fig, title, int(min(max(90 * shape.ylen, 300), 640)) + 60)
    note_above(fig, busiest_link_text(links, bandwidth))
    return fig


def busiest_link_text(links: pd.DataFrame, bandwidth: int | None) -> str:
    """`links by bytes (darker, wider: more); busiest DRAM E1->(3,1): 12.6 MiB, 52% busy at 16 B/cycle`."""
    if links.empty:
        return "no NoC traffic in this window"
    top = links.iloc[0]
    text = f"links by bytes (darker, wider: more); busiest {top['link']}: {format_bytes(int(top['bytes']))}"
    if pd.notna(top["busy_share"]):
        return text + f", {top['busy_share']:.0%} busy at {bandwidth} B/cycle"
    return text + " (--noc-bw gives its busy share)"


def _tiles(
    tiles: pd.DataFrame, values: np.ndarray, label: str, share: bool, metric: str, shape: MeshShape
) -> tuple[go.Scatter, float]:
    """An invisible marker per core carrying its number, the colour bar, the hover (core, position,
    every metric, top layers) and the click; and the top of the colour scale."""
    text = [f"{v:.0%}" if share and not np.isnan(v) else ("" if np.isnan(v) else _short(v)) for v in values]
    l2 = [
        "n/a" if pd.isna(p) else format_bytes(int(p)) + ("" if pd.isna(s) else f" ({s:.0%} of L2)")
        for p, s in zip(tiles["peak_l2_bytes"], tiles["l2_share"], strict=True)
    ]
    custom = np.column_stack(
        [
            tiles["core_id"].to_numpy(),
            tiles["label"].to_numpy() if "label" in tiles else tiles["core_id"].astype(str).to_numpy(),
            [f"{v:.1%}" for v in tiles["busy_share"]],
            [f"{v:.1%}" for v in tiles["waiting_share"]],
            l2,
            [format_bytes(int(v)) for v in tiles["dram_bytes"]],
            [format_bytes(int(v)) for v in tiles["sent_bytes"]],
            [format_bytes(int(v)) for v in tiles["received_bytes"]],
            escape(tiles["top_layers"].replace("", "none")),
        ]
    )
    finite = values[~np.isnan(values)]
    top = 1.0 if share else (float(finite.max()) if len(finite) and finite.max() > 0 else 1.0)
    marks = go.Scatter(
        x=tiles["x"].to_numpy(),
        y=tiles["y"].to_numpy(),
        mode="markers+text",
        marker={
            "symbol": "square",
            "size": 30,
            "opacity": 0,
            "color": np.nan_to_num(values, nan=0.0),
            "colorscale": _SCALES.get(metric, "Blues"),
            "cmin": 0,
            "cmax": top,
            "colorbar": {
                "title": {"text": label},
                "tickformat": ".0%" if share else ("~s" if top >= 1000 else ",.0f"),
                "len": 0.8,
            },
        },
        text=text,
        textfont={
            "size": 10 if shape.xlen > 6 else 12,
            "color": ["white" if v / top > 0.55 else "#111" for v in np.nan_to_num(values)],
        },
        customdata=custom,
        hovertemplate="<b>%{customdata[1]}</b> at (%{x},%{y})<br>busy %{customdata[2]}, waiting %{customdata[3]}"
        "<br>peak L2 %{customdata[4]}<br>DRAM %{customdata[5]}; to cores %{customdata[6]}, from cores "
        "%{customdata[7]}<br>top layers: %{customdata[8]}<extra></extra>",
        name="tiles",
    )
    return marks, top


def _ports(shape: MeshShape) -> go.Scatter:
    """The DRAM ports, one per row on each edge column (Gemini's dram_list)."""
    xs = [-1] * shape.ylen + [shape.xlen] * shape.ylen
    ys = list(range(shape.ylen)) * 2
    names = [f"DRAM W{y}" for y in range(shape.ylen)] + [f"DRAM E{y}" for y in range(shape.ylen)]
    return go.Scatter(
        x=xs,
        y=ys,
        mode="markers",
        marker={"symbol": "diamond", "size": 14, "color": "#bbb", "line": {"color": "#666", "width": 1}},
        text=names,
        hovertemplate="%{text}<extra></extra>",
        name="DRAM ports",
    )


def _link_traces(links: pd.DataFrame, bandwidth: int | None) -> list[go.Scatter]:
    """Each directed link a segment in the gap between its tiles, in 5 width/colour steps of bytes; one
    invisible marker per link at its middle carries the hover and the click (the link's key)."""
    if links.empty:
        return []
    top = float(links["bytes"].max()) or 1.0
    step = np.minimum(
        (links["bytes"].to_numpy(float) / top * len(LINK_WIDTHS)).astype(int), len(LINK_WIDTHS) - 1
    )
    x0, y0 = links["x"].to_numpy(float), links["y"].to_numpy(float)
    x1, y1 = links["to_x"].to_numpy(float), links["to_y"].to_numpy(float)
    dx = np.array([_OFFSETS[d][0] for d in links["direction"]])
    dy = np.array([_OFFSETS[d][1] for d in links["direction"]])
    # From the edge of one tile to the edge of the next (ports are points: from their centre).
    sx, sy = np.sign(x1 - x0), np.sign(y1 - y0)
    gap = TILE / 2 + 0.02
    ax, ay = x0 + sx * gap + dx, y0 + sy * gap + dy
    bx, by = x1 - sx * gap + dx, y1 - sy * gap + dy
    traces = []
    for k in range(len(LINK_WIDTHS)):
        pick = np.flatnonzero(step == k)
        if not len(pick):
            continue
        xs: list[Any] = []
        ys: list[Any] = []
        for i in pick:
            xs += [ax[i], bx[i], None]
            ys += [ay[i], by[i], None]
        traces.append(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"width": LINK_WIDTHS[k], "color": LINK_COLORS[k]},
                hoverinfo="skip",
                name=f"links {k + 1}/5",
            )
        )
    busy = [f", {s:.1%} busy at {bandwidth} B/cycle" if pd.notna(s) else "" for s in links["busy_share"]]
    custom = np.column_stack(
        [
            links["link"].astype(str).to_numpy(),  # made of integers by link_label: nothing to escape
            [format_bytes(int(v)) for v in links["bytes"]],
            [format_bytes(int(v)) for v in links["core_bytes"]],
            [format_bytes(int(v)) for v in links["dram_read_bytes"]],
            [format_bytes(int(v)) for v in links["dram_write_bytes"]],
            links["transfers"].to_numpy(),
            busy,
            links["x"].to_numpy(),
            links["y"].to_numpy(),
            links["to_x"].to_numpy(),
            links["to_y"].to_numpy(),
        ]
    )
    traces.append(
        go.Scatter(
            x=(ax + bx) / 2,
            y=(ay + by) / 2,
            mode="markers",
            marker={"size": 12, "color": "rgba(0,0,0,0)"},
            customdata=custom,
            hovertemplate="<b>link %{customdata[0]}</b>: %{customdata[1]}%{customdata[6]}<br>core to core "
            "%{customdata[2]}, DRAM read %{customdata[3]}, write %{customdata[4]}<br>%{customdata[5]} transfers "
            "(click to list them)<extra></extra>",
            name="links",
        )
    )
    return traces


def _short(value: float) -> str:
    """A tile's number in a few characters: 12.3M, 640k."""
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.0f}"


def mesh_view(
    analysis: Analysis,
    model: str = "dependency",
    metric: str = "busy",
    window: tuple[float, float] | None = None,
    selected_core: int | None = None,
) -> go.Figure:
    """What the dashboard and the report draw: the mesh of `analysis` under `model` in `window`."""
    shape = mesh_shape(analysis.index)
    if shape is None:
        return empty_figure("no mesh: the file gives no xlen/ylen, or a core has no position on it")
    tiles = analysis.tiles(model, window)
    tiles = tiles.assign(label=[analysis.core_label(int(c)) for c in tiles["core_id"]])
    bandwidth = analysis.options.noc_bw
    links = analysis.link_table(model, window)
    scope = f"{model} model, " + (
        f"cycles {window[0]:,.0f}-{window[1]:,.0f}" if window is not None else "whole schedule"
    )
    return mesh_figure(
        tiles, links, shape, metric, scope=scope, selected_core=selected_core, bandwidth=bandwidth
    )
