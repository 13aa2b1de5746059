"""Counter tracks under the timeline and the link x time heatmap, as trace viewers draw them.

Under the timeline (Perfetto's counters under its slices): the L2 the picked core holds over time, and
the bytes per cycle on one link (the busiest, or the one clicked in the heatmap or on the mesh). Below,
every loaded link's bytes per cycle per time bin. All three follow the page's cycles range (`view`);
the numbers are irtools.analysis.counters'.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import plotly.graph_objects as go
from dash import Dash, Input, Output, State, dcc, html, no_update
from plotly.subplots import make_subplots

from dashboards.data import FileStore
from dashboards.figures import NO_IR, empty_figure, finish_layout, placeholder
from dashboards.shared_range import range_patch, view_window
from dashboards.timeline import LEFT_MARGIN
from dashboards.wiring import Trigger, wire
from irtools.analysis import Analysis
from irtools.analysis.counters import Link, LinkHeat, link_capacity, parse_link_label
from irtools.analysis.routing import link_label
from irtools.analysis.units import byte_ticks, format_bytes

HEAT_BINS = 240
"""Time bins of the link x time heatmap."""
HEAT_ROW_PX = 4
"""Height of one link's row in the heatmap (284 links of an 8x8 mesh: about 1,100 px, capped below)."""
HEAT_MAX_PX = 720
_GRAPH: Any = {"displaylogo": False}
_NOTE = {"fontSize": "12px", "color": "#666"}


def counter_section() -> html.Div:
    """The counter tracks' place, right under the timeline."""
    return html.Div(
        [
            dcc.Loading(dcc.Graph(id="counters", config=_GRAPH, figure=placeholder()), type="dot"),
            dcc.Store(id="picked-link"),
            # The file key once its timeline is in the page: the tracks and the heatmap start then, so
            # their work (routing the traffic) never holds the browser's few connections before it.
            dcc.Store(id="timeline-drawn"),
        ],
        id="counter-section",
    )


def heat_section() -> html.Div:
    """The link x time heatmap's place (shown for files with a mesh)."""
    return html.Div(
        [
            html.H3("NoC links over time", style={"fontSize": "17px", "margin": "10px 0 2px"}),
            html.Div(
                "One row per directed link, heaviest first; colour: bytes per cycle in each time bin (with a "
                "NoC bandwidth, the share of the link's capacity). Click a row for its rate under the timeline.",
                style=_NOTE,
            ),
            dcc.Loading(dcc.Graph(id="link-heat", config=_GRAPH, figure=placeholder()), type="dot"),
        ],
        id="heat-section",
        style={"display": "none"},
    )


def pick(store: FileStore, trigger: Trigger, heat_click: Any, mesh_click: Any, key: str | None) -> Any:
    """A heatmap row or a mesh link clicked: that link's label for the rate track."""
    points = ((heat_click if trigger.id == "link-heat" else mesh_click) or {}).get("points") or []
    if not points:
        return no_update
    point = points[0]
    if trigger.id == "link-heat":
        return str(point.get("y", "")) or no_update
    custom = point.get("customdata")
    # A mesh link's hover data starts with its label (mesh.LINK_FIELDS); a tile's with its core id.
    if isinstance(custom, list) and custom and isinstance(custom[0], str) and "->" in custom[0]:
        return custom[0]
    return no_update


def counters(
    store: FileStore,
    trigger: Trigger,
    key: str | None,
    model: str,
    core: int | None,
    link: str | None,
    view: Any,
) -> Any:
    """The counter tracks for the picked core and link, over the view's range."""
    entry = store.find(key)
    if entry is None or core is None:
        return empty_figure(NO_IR)
    window = view_window(view, key)
    if trigger.only_view:
        return range_patch(window, ("xaxis", "xaxis2"))
    entry.after_view(model)  # the link's load is routed traffic: after the timeline and maps
    return counters_figure(entry.analysis, model, core, link, window)


def picked_link(a: Analysis, model: str, label: str | None) -> Link | None:
    """The link `label` names, else the whole schedule's busiest (None without a mesh or traffic)."""
    xlen = a.index.ir.xlen
    if xlen is None:
        return None
    if label:
        link = parse_link_label(label, xlen)
        if link is not None:
            return link
    table = a.link_table(model)
    if table.empty:
        return None
    top = table.iloc[0]
    return int(top["x"]), int(top["y"]), int(top["to_x"]), int(top["to_y"])


def counters_figure(
    a: Analysis, model: str, core: int, label: str | None, window: tuple[float, float] | None
) -> go.Figure:
    """Two tracks on the timeline's cycles axis: L2 held by `core`, and bytes per cycle on the picked link."""
    link = picked_link(a, model, label) if a.index.ir.xlen is not None else None
    rows = 2 if link is not None else 1
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.18)
    held = a.l2_counter(core, model)
    fig.add_trace(
        go.Scatter(
            x=held["cycle"],
            y=held["held_bytes"],
            mode="lines",
            line={"shape": "hv", "color": "#4C78A8", "width": 1.5},
            fill="tozeroy",
            name=f"L2 held, {a.core_label(core)}",
            customdata=[format_bytes(v) if not math.isnan(v) else "unknown" for v in held["held_bytes"]],
            hovertemplate="cycle %{x:,.0f}: %{customdata} held<extra></extra>",
        ),
        row=1,
        col=1,
    )
    capacity = a.l2_capacity_kib
    top = float(np.nanmax(held["held_bytes"])) if len(held) and held["held_bytes"].notna().any() else 0.0
    if capacity:
        fig.add_hline(y=capacity * 1024, line={"color": "#b00", "dash": "dot", "width": 1}, row=1, col=1)
        top = max(top, capacity * 1024)
    ticks, texts = byte_ticks(top or 1.0, 3)
    fig.update_yaxes(tickvals=ticks, ticktext=texts, title=None, row=1, col=1)
    if link is not None:
        rate = a.link_rate(model, link)
        name = _link_name(a, link)
        if rate is not None:
            fig.add_trace(
                go.Scatter(
                    x=rate["cycle"],
                    y=rate["bytes_per_cycle"],
                    mode="lines",
                    line={"shape": "hv", "color": "#E6550D", "width": 1.5},
                    fill="tozeroy",
                    name=f"bytes/cycle on {name}",
                    hovertemplate="cycle %{x:,.0f}: %{y:,.1f} B/cycle<extra></extra>",
                ),
                row=2,
                col=1,
            )
        if a.noc_model is not None:
            fig.add_hline(y=_capacity(a), line={"color": "#b00", "dash": "dot", "width": 1}, row=2, col=1)
        fig.update_yaxes(title=None, tickformat="~s", row=2, col=1)
    # An invisible bar over [0, the schedule's end] on each track: the cycles axis autoranges as the
    # timeline's bars make it (with the same padding), so a track lines up with the rows above it.
    end = float(a.timeline.loc[a.timeline["model"] == model, "end"].max())
    for row in range(1, rows + 1):
        fig.add_trace(
            go.Bar(x=[end], base=[0], y=[0], orientation="h", opacity=0, hoverinfo="skip", name="span"),
            row=row,
            col=1,
        )
    fig.update_xaxes(tickformat="~s", hoverformat=",.0f")
    fig.update_xaxes(title="cycles", row=rows, col=1)
    if window is not None:
        fig.update_xaxes(range=list(window))
    title = f"Counters ({model}): L2 held by {a.core_label(core)}"
    if link is not None:
        title += f"; bytes per cycle on {_link_name(a, link)}"
        title += f" (dotted: its capacity, {_capacity_text(a)})" if a.noc_model else ""
    fig = finish_layout(fig, title, 120 * rows)
    fig.update_layout(margin={"t": 40, "l": LEFT_MARGIN}, showlegend=False, uirevision="counters")
    return fig


def _capacity(a: Analysis) -> float:
    model = a.noc_model
    return 0.0 if model is None else link_capacity(model.bandwidth, model.frequency)


def _capacity_text(a: Analysis) -> str:
    """`10.4 B/cycle (NoC 8 B/cycle at Gemini's frequency 1.3)`: the IR's cycles are not the NoC's."""
    model = a.noc_model
    if model is None:
        return ""
    return (
        f"{_capacity(a):g} B/cycle (NoC {model.bandwidth} B/cycle at Gemini's frequency {model.frequency:g})"
    )


def _link_name(a: Analysis, link: Link) -> str:
    return link_label(*link, a.index.ir.xlen or 0)


def show_heat(store: FileStore, trigger: Trigger, key: str | None) -> Any:
    """The heatmap section, shown for a file with a mesh."""
    entry = store.find(key)
    shown = entry is not None and entry.analysis.index.ir.xlen is not None
    return {"display": "block"} if shown else {"display": "none"}


def heat(store: FileStore, trigger: Trigger, key: str | None, model: str, view: Any) -> Any:
    """The link x time heatmap for the view's range (binned again for it, as the aggregated timeline)."""
    entry = store.find(key)
    if entry is None or entry.analysis.index.ir.xlen is None:
        return {}
    entry.after_view(model)  # binning every link's load: after the timeline and maps
    a = entry.analysis
    found = a.link_heat(model, HEAT_BINS, view_window(view, key))
    if found is None or not found.labels:
        return empty_figure("no bytes on any link")
    return heat_figure(found, model, _capacity(a) or None, _capacity_text(a))


def heat_figure(found: LinkHeat, model: str, capacity: float | None, capacity_text: str = "") -> go.Figure:
    """Links (rows, heaviest on top) x time bins; colour: bytes per cycle, or the share of `capacity`
    (bytes a link moves per cycle)."""
    bandwidth = capacity
    value = found.rate / capacity if capacity else found.rate
    centres = (found.edges[:-1] + found.edges[1:]) / 2
    unit = "share of capacity" if capacity else "bytes/cycle"
    fig = go.Figure(
        go.Heatmap(
            z=value,
            x=centres,
            y=found.labels,
            colorscale="Oranges",
            zmin=0,
            zmax=1 if bandwidth else None,
            colorbar={"title": {"text": unit, "side": "right"}, "thickness": 12},
            hovertemplate="%{y}, cycles ~%{x:,.0f}<br>"
            + ("%{z:.0%} of the link's bandwidth" if bandwidth else "%{z:,.1f} bytes/cycle")
            + "<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", tickfont={"size": 9}, title=None)
    fig.update_xaxes(title="cycles", tickformat="~s", range=[found.edges[0], found.edges[-1]])
    height = min(HEAT_MAX_PX, max(200, HEAT_ROW_PX * len(found.labels)))
    title = f"Link load over time ({model}): {len(found.labels):,} links x {len(centres)} bins"
    if capacity_text:
        title += f"; capacity {capacity_text}"
    return finish_layout(fig, title, height)


def register_counters(app: Dash, store: FileStore) -> None:
    """Wire the counter tracks' and the heatmap's callbacks; no logic here."""
    wire(
        app,
        pick,
        store,
        Output("picked-link", "data"),
        Input("link-heat", "clickData"),
        Input("mesh", "clickData"),
        State("shown", "data"),
        prevent_initial_call=True,
    )
    app.clientside_callback(  # type: ignore[no-untyped-call]
        """function (figure, key, drawn) {
            const ready = figure && figure.data && figure.data.length > 0;
            return ready && key !== drawn ? key : window.dash_clientside.no_update;
        }""",
        Output("timeline-drawn", "data"),
        Input("timeline", "figure"),
        State("shown", "data"),
        State("timeline-drawn", "data"),
    )
    wire(
        app,
        counters,
        store,
        Output("counters", "figure"),
        Input("timeline-drawn", "data"),
        Input("model", "value"),
        Input("core", "value"),
        Input("picked-link", "data"),
        Input("view", "data"),
    )
    wire(app, show_heat, store, Output("heat-section", "style"), Input("shown", "data"))
    wire(
        app,
        heat,
        store,
        Output("link-heat", "figure"),
        Input("timeline-drawn", "data"),
        Input("model", "value"),
        Input("view", "data"),
    )
