"""The mesh view: the chip's tiles coloured by a metric, the NoC links between them by what they cost.

Links are ranked by the NoC cycles they add (irtools.analysis.link_cost) when a NoC bandwidth is known,
by their bytes otherwise, and the figure says which; their colour bar is in absolute units and scaled to
the whole schedule, so a zoomed window reads lighter than the whole instead of as hot. Each direction
ends in an arrowhead. Tiles use palettes the links never use.

Figures only: the numbers are `Analysis.tiles` and `Analysis.link_table` (irtools.analysis).
Row 0 is on top, as Gemini numbers the rows; the DRAM ports sit on the edge columns x = -1 and x = xlen.
Each direction of a link is its own segment, beside the other: east- and westbound above and below
the row's centre line, down- and upbound right and left of the column's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from dashboards.figures import empty_figure, escape, finish_layout, note_above
from dashboards.timeline import plural
from irtools.analysis import Analysis
from irtools.analysis.chiplets import ChipletCut
from irtools.analysis.link_cost import ranked_links
from irtools.analysis.tiles import METRICS, MeshShape, mesh_shape
from irtools.analysis.units import byte_ticks, count_ticks, format_bytes

TILE = 0.56
"""Tile side in mesh units: the rest of each unit is the gap the links run in."""
LINK_OFFSET = 0.11
LINK_WIDTHS = (1.5, 3.0, 5.0, 7.5, 10.0)
LINK_COLORS = ("#f7c99e", "#f3a35e", "#e8782a", "#c5520f", "#8c3405")
"""Links in five steps of the ranking value against the whole schedule's top (width and colour together)."""
IDLE_LINK = "#c8c8c8"
"""A link that carries bytes but adds no NoC cycles (when links are ranked by cycles added)."""
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
    "stalled": "PuRd",
    "waiting": "Reds",
    "l2": "Purples",
    "dram": "Greens",
    "sent": "Teal",
    "received": "Teal",
}
"""Tile palettes: none of them is the links' orange, so the tile colour bar never seems to scale the links."""


def metric_values(tiles: pd.DataFrame, metric: str) -> tuple[np.ndarray, str, bool]:
    """(values, colour-bar title, whether they are shares 0..1) of `metric` for each tile row."""
    if metric == "busy":
        return tiles["busy_share"].to_numpy(float), "busy share (compute)", True
    if metric == "stalled":
        return tiles["noc_stall_share"].to_numpy(float), "NoC-stalled share", True
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


@dataclass(frozen=True, slots=True)
class LinkScale:
    """What ranks the links (`cycles added` or `bytes`) and the whole schedule's top of it: the link colour
    bar's fixed end, the same for every window."""

    rank_by: str = "bytes"
    top: float = 0.0

    @property
    def column(self) -> str:
        """The noc_links column that ranks and draws the links: added_cycles or bytes."""
        return "added_cycles" if self.rank_by == "cycles added" else "bytes"


def mesh_figure(
    tiles: pd.DataFrame,
    links: pd.DataFrame,
    shape: MeshShape,
    metric: str = "busy",
    *,
    scope: str = "",
    selected_core: int | None = None,
    bandwidth: int | None = None,
    scale: LinkScale | None = None,
    tile_top: float | None = None,
    cut: ChipletCut | None = None,
) -> go.Figure:
    """The tiles of `tiles` (Analysis.tiles) and the links of `links` (noc_links rows, with added_cycles and
    bound_layers when ranked by cost) on the mesh.

    `scope` says what the numbers cover (the model and the cycles window), for the title; `scale` ranks
    the links and fixes their colour bar; `tile_top` fixes the tiles' colour bar for byte metrics.
    """
    if tiles.empty:
        return empty_figure("no core on the mesh")
    scale = scale or LinkScale("bytes", float(links["bytes"].max()) if len(links) else 0.0)
    fig = go.Figure()
    for trace in _link_traces(links, bandwidth, scale):
        fig.add_trace(trace)
    fig.add_trace(_ports(shape))
    values, label, share = metric_values(tiles, metric)
    marks, top = _tiles(tiles, values, label, share, metric, shape, tile_top)
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
    if cut is not None and cut.is_cut:
        shapes += _die_boundaries(cut)
        fig.add_trace(_nop_marks(cut))
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
    if cut is not None and cut.is_cut:
        title += f"; {cut.text()}, NoP links purple"  # the cut: the run's input line (xcut, ycut)
    fig.update_layout(showlegend=False, plot_bgcolor="white", clickmode="event")
    # An 8x8 chip in 480 px (not 700): with the header and the controls it fits the first screen.
    finish_layout(fig, title, mesh_height(shape))
    note_above(fig, busiest_link_text(links, bandwidth, scale.rank_by))
    return fig


NOP_COLOR = "#6a3d9a"
"""Die boundaries and NoP (die-to-die) links: a purple no tile palette and no link step uses."""


def _die_boundaries(cut: ChipletCut) -> list[dict[str, Any]]:
    """Dashed lines between the dies, through the gaps between their edge columns and rows."""
    line = {"color": NOP_COLOR, "width": 2, "dash": "dash"}
    vertical = [
        {"type": "line", "x0": j - 0.5, "x1": j - 0.5, "y0": -0.5, "y1": cut.ylen - 0.5, "line": line}
        for j in cut.x_boundaries()
    ]
    horizontal = [
        {"type": "line", "x0": -0.5, "x1": cut.xlen - 0.5, "y0": j - 0.5, "y1": j - 0.5, "line": line}
        for j in cut.y_boundaries()
    ]
    return vertical + horizontal


def _nop_marks(cut: ChipletCut) -> go.Scatter:
    """A purple square on each NoP link pair (both directions), with what it joins on hover."""
    pairs = sorted(
        {(min(a, b), max(a, b)) for a, b in (((x, y), (tx, ty)) for x, y, tx, ty in cut.nop_links())}
    )

    def name(x: int, y: int) -> str:
        return f"DRAM W{y}" if x < 0 else f"DRAM E{y}" if x >= cut.xlen else f"({x},{y})"

    return go.Scatter(
        x=[(a[0] + b[0]) / 2 for a, b in pairs],
        y=[(a[1] + b[1]) / 2 for a, b in pairs],
        mode="markers",
        marker={"symbol": "square", "size": 7, "color": NOP_COLOR, "line": {"color": "white", "width": 1}},
        text=[f"NoP link (die to die): {name(*a)} <-> {name(*b)}" for a, b in pairs],
        hovertemplate="%{text}<extra></extra>",
        name="NoP links",
    )


def mesh_height(shape: MeshShape) -> int:
    """The mesh figure's plot height in px for `shape`."""
    return int(min(max(60 * shape.ylen, 300), 420)) + 60


def busiest_link_text(links: pd.DataFrame, bandwidth: int | None, rank_by: str = "bytes") -> str:
    """What ranks the links and the worst one: by cycles added (`costliest DRAM W0->(0,0): +64,378 cycles,
    bounds 5 layers`) when a NoC bandwidth is known, else by bytes (`busiest (0,1)->(0,0): 5.83 MiB`)."""
    if links.empty:
        return "no NoC traffic in this window"
    heaviest = links.loc[links["bytes"].idxmax()]
    most = f"{heaviest['link']}: {format_bytes(int(heaviest['bytes']))}"
    if pd.notna(heaviest["busy_share"]):
        most += f", {heaviest['busy_share']:.0%} busy at {bandwidth} B/cycle"
    if rank_by != "cycles added":
        return f"links by bytes (darker, wider: more; arrow: direction); busiest {most} (--noc-bw ranks them by the NoC cycles they add)"
    top = links.iloc[0]
    if int(top["added_cycles"]) <= 0:
        return (
            f"links by NoC cycles added: none adds any in this window (grey: bytes only); most bytes {most}"
        )
    layers = int(top["bound_layers"])
    return (
        f"links by NoC cycles added at {bandwidth} B/cycle (darker, wider: more; grey: adds none); costliest "
        f"{top['link']}: +{int(top['added_cycles']):,} cycles, bounds {plural(layers, 'layer')}; most bytes {most}"
    )


def _tiles(
    tiles: pd.DataFrame,
    values: np.ndarray,
    label: str,
    share: bool,
    metric: str,
    shape: MeshShape,
    fixed_top: float | None = None,
) -> tuple[go.Scatter, float]:
    """An invisible marker per core carrying its number, the colour bar, the hover (core, position,
    every metric, top layers) and the click; and the top of the colour scale (`fixed_top` if given)."""
    text = ["" if np.isnan(v) else f"{v:.0%}" if share else format_bytes(v, space="") for v in values]
    l2 = [
        "n/a" if pd.isna(p) else format_bytes(int(p)) + ("" if pd.isna(s) else f" ({s:.0%} of L2)")
        for p, s in zip(tiles["peak_l2_bytes"], tiles["l2_share"], strict=True)
    ]
    custom = np.column_stack(
        [
            tiles["core_id"].to_numpy(),
            tiles["label"].to_numpy() if "label" in tiles else tiles["core_id"].astype(str).to_numpy(),
            [
                f"{b:.1%}" + (f", NoC-stalled {s:.1%}" if s > 0 else "")
                for b, s in zip(tiles["busy_share"], tiles["noc_stall_share"], strict=True)
            ],
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
    if fixed_top and not share:
        top = max(fixed_top, 1.0)
    ticks: dict[str, Any] = {"tickformat": ".0%"}
    if not share:
        values_at, labels_at = byte_ticks(top)
        ticks = {"tickvals": values_at, "ticktext": labels_at}
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
                "title": {"text": f"tiles:<br>{label}", "font": {"size": 11}},
                "len": 0.8,
                "x": 1.0,
                **ticks,
            },
        },
        text=text,
        textfont={
            "size": 10 if shape.xlen > 6 else 12,
            "color": ["white" if v / top > 0.55 else "#111" for v in np.nan_to_num(values)],
        },
        customdata=custom,
        hovertemplate="<b>%{customdata[1]}</b> at (%{x},%{y})<br>busy (compute) %{customdata[2]}, waiting "
        "%{customdata[3]}<br>peak L2 %{customdata[4]}<br>DRAM %{customdata[5]}; to cores %{customdata[6]}, "
        "from cores %{customdata[7]}<br>top layers: %{customdata[8]}<extra></extra>",
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


def link_steps(values: np.ndarray, top: float) -> np.ndarray:
    """Each link's step 0..4 of `values` against the whole schedule's `top` (-1: nothing, drawn grey)."""
    if not top > 0:
        return np.where(values > 0, 0, -1)
    steps = np.minimum((values / top * len(LINK_WIDTHS)).astype(int), len(LINK_WIDTHS) - 1)
    return np.where(values > 0, steps, -1)


def _link_traces(links: pd.DataFrame, bandwidth: int | None, scale: LinkScale) -> list[go.Scatter]:
    """Each directed link a segment in the gap between its tiles ending in an arrowhead, in 5 width/colour
    steps of the ranking value against the whole schedule's top; one invisible marker per link at its
    middle carries the hover and the click (the link's key); a colour bar in the ranking's units."""
    if links.empty:
        return []
    step = link_steps(links[scale.column].to_numpy(float), scale.top)
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
    # Arrowheads small enough to leave the link visible on an 8x8 chip (about 45 px per tile).
    arrow = 4.0 if max(x1.max(), y1.max()) > 5 else 6.0
    # The arrowhead at the far end shows the direction without hovering: its angle clockwise from up,
    # on screen (the y axis points down). One marker per link: as `angleref="previous"` markers on
    # the line, each segment's start and gap drew an empty marker too (Chromium: 0.3 s of the mesh's
    # 0.65 s draw on an 8x8 chip, on every zoom, core and model switch).
    angle = np.degrees(np.arctan2(bx - ax, -(by - ay)))
    for k in range(-1, len(LINK_WIDTHS)):
        pick = np.flatnonzero(step == k)
        if not len(pick):
            continue
        width = 1.0 if k < 0 else LINK_WIDTHS[k]
        color = IDLE_LINK if k < 0 else LINK_COLORS[k]
        name = "links (no cost)" if k < 0 else f"links {k + 1}/5"
        gaps = np.full(len(pick), np.nan)
        head = arrow + width * 0.5
        traces.append(
            go.Scatter(
                x=np.column_stack([ax[pick], bx[pick], gaps]).ravel(),
                y=np.column_stack([ay[pick], by[pick], gaps]).ravel(),
                # Each segment stops where its head starts (`backoff`, px; Plotly.js backs lines off only in a
                # trace with markers: one, of size 0, is drawn), so the head's tip is the far end.
                mode="lines+markers",
                line={"width": width, "color": color, "backoff": head},
                marker={"size": 0, "opacity": 0, "maxdisplayed": 1},
                hoverinfo="skip",
                name=name,
            )
        )
        traces.append(
            go.Scatter(
                x=bx[pick],
                y=by[pick],
                mode="markers",
                # A list: Plotly.js leaves a typed array (numpy's encoding) of marker angles undecoded.
                marker={
                    "symbol": "arrow",
                    "angle": angle[pick].tolist(),
                    "size": head,
                    "color": color,
                },
                hoverinfo="skip",
                name=f"{name}: arrowheads",
            )
        )
    traces.append(_link_colorbar(scale))
    busy = [f", {s:.1%} busy at {bandwidth} B/cycle" if pd.notna(s) else "" for s in links["busy_share"]]
    cost = (
        [
            f"<br>adds {int(c):,} NoC cycles, bounds {plural(int(n), 'layer')}"
            if c > 0
            else "<br>adds no NoC cycles"
            for c, n in zip(links["added_cycles"], links["bound_layers"], strict=True)
        ]
        if scale.rank_by == "cycles added"
        else [""] * len(links)
    )
    custom = np.column_stack(
        [
            links["link"].astype(str).to_numpy(),  # made of integers by link_label: nothing to escape
            [format_bytes(int(v)) for v in links["bytes"]],
            [format_bytes(int(v)) for v in links["core_bytes"]],
            [format_bytes(int(v)) for v in links["dram_read_bytes"]],
            [format_bytes(int(v)) for v in links["dram_write_bytes"]],
            links["transfers"].to_numpy(),
            [b + c for b, c in zip(busy, cost, strict=True)],
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


def _link_colorbar(scale: LinkScale) -> go.Scatter:
    """The links' colour bar: the five steps in absolute units up to the whole schedule's top."""
    top = scale.top if scale.top > 0 else 1.0
    n = len(LINK_COLORS)
    colorscale = [[edge, color] for k, color in enumerate(LINK_COLORS) for edge in (k / n, (k + 1) / n)]
    if scale.rank_by == "cycles added":
        values, labels = count_ticks(top)
        title = "links: NoC<br>cycles added"
    else:
        values, labels = byte_ticks(top)
        title = "links:<br>bytes"
    ticks = {"tickvals": values, "ticktext": labels}
    return go.Scatter(
        x=[None],
        y=[None],
        mode="markers",
        marker={
            "color": [0],
            "colorscale": colorscale,
            "cmin": 0,
            "cmax": top,
            "showscale": True,
            "colorbar": {"title": {"text": title, "font": {"size": 11}}, "len": 0.8, "x": 1.2, **ticks},
        },
        hoverinfo="skip",
        name="link scale",
    )


def mesh_view(
    analysis: Analysis,
    model: str = "dependency",
    metric: str = "busy",
    window: tuple[float, float] | None = None,
    selected_core: int | None = None,
    cut: ChipletCut | None = None,
) -> go.Figure:
    """What the dashboard and the report draw: the mesh of `analysis` under `model` in `window`, its
    chiplet boundaries and NoP links drawn when `cut` (from the run's input line) cuts it."""
    shape = mesh_shape(analysis.index)
    if shape is None:
        return empty_figure("no mesh: the file gives no xlen/ylen, or a core has no position on it")
    tiles = analysis.tiles(model, window)
    tiles = tiles.assign(label=[analysis.core_label(int(c)) for c in tiles["core_id"]])
    links, scale = mesh_links(analysis, model, window)
    scope = f"{model} model, " + (
        f"cycles {window[0]:,.0f}-{window[1]:,.0f}" if window is not None else "whole schedule"
    )
    whole = analysis.tiles(model, None)
    values, _, share = metric_values(whole, metric)
    tile_top = None if share or not np.isfinite(values).any() else float(np.nanmax(values))
    return mesh_figure(
        tiles,
        links,
        shape,
        metric,
        scope=scope,
        selected_core=selected_core,
        bandwidth=analysis.options.noc_bw,
        scale=scale,
        tile_top=tile_top,
        cut=cut,
    )


def mesh_links(
    analysis: Analysis, model: str, window: tuple[float, float] | None
) -> tuple[pd.DataFrame, LinkScale]:
    """The links in `window` ranked by cycles added (with a NoC bandwidth) or bytes, and the scale fixed
    by the whole schedule's ranking (the colour bar every window shares)."""
    links, rank_by = ranked_links(analysis.link_table(model, window), analysis.link_costs(model, window))
    whole, _ = ranked_links(analysis.link_table(model, None), analysis.link_costs(model, None))
    column = "added_cycles" if rank_by == "cycles added" else "bytes"
    top = float(whole[column].max()) if len(whole) else 0.0
    return links, LinkScale(rank_by, top)
