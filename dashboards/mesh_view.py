"""The dashboard's mesh section: shown for files whose cores sit on a mesh (xlen/ylen, mesh ids).

The tiles and links cover the page's cycles range (the `view`), so zooming or panning the timeline
scrubs through the schedule. Clicking a tile picks that core for the timeline and the maps;
clicking a link lists the transfers that cross it.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from dash import Dash, Input, Output, State, dcc, html, no_update

from dashboards.data import FileStore
from dashboards.figures import placeholder
from dashboards.mesh import LINK_FIELDS, TILE_FIELDS, mesh_height, mesh_view
from dashboards.shared_range import view_window
from dashboards.wiring import Trigger, wire
from irtools.analysis.link_load import crossing, crossing_ends
from irtools.analysis.tiles import METRICS, mesh_shape
from irtools.analysis.units import format_bytes

_HIDDEN = {"display": "none"}
_SHOWN = {"display": "block", "marginTop": "6px"}
MAX_LISTED = 50
"""Transfers listed for a clicked link (the heaviest)."""
_CELL = {"border": "1px solid #ddd", "padding": "2px 6px", "fontSize": "12px", "textAlign": "left"}


def mesh_section() -> html.Div:
    """Hidden until a file with a mesh is selected."""
    return html.Div(
        [
            html.Div(
                [
                    html.H3("Mesh", style={"fontSize": "17px", "margin": "0 12px 0 0"}),
                    html.Div("Tile colour", style={"fontWeight": 600, "fontSize": "13px", "color": "#444"}),
                    dcc.RadioItems(
                        id="mesh-metric",
                        options=[{"label": text, "value": key} for key, text in METRICS.items()],
                        value="busy",
                        inline=True,
                        inputStyle={"marginRight": "4px", "marginLeft": "8px"},
                        style={"fontSize": "13px"},
                    ),
                ],
                style={"display": "flex", "alignItems": "center", "flexWrap": "wrap", "gap": "6px"},
            ),
            html.Div(
                "The numbers cover the cycles range on screen: zoom or pan the timeline to scrub through "
                "the schedule. Click a tile for that core in the timeline and maps, a link for its transfers.",
                style={"fontSize": "12px", "color": "#666"},
            ),
            html.Div(
                dcc.Loading(
                    dcc.Graph(id="mesh", config={"displaylogo": False}, figure=placeholder()), type="dot"
                ),
                id="mesh-box",
            ),
            html.Div(id="mesh-links", style={"maxHeight": "260px", "overflowY": "auto"}),
        ],
        id="mesh-section",
        style=_HIDDEN,
    )


def _analysis(store: FileStore, key: str | None, model: str | None = None) -> Any:
    entry = store.find(key)
    if entry and model is not None:
        entry.after_view(model)  # routing a large file's traffic takes seconds: after the view under it
    return entry.analysis if entry else None


def show(store: FileStore, trigger: Trigger, key: str | None) -> tuple[Any, ...]:
    """The mesh section, shown for a file with a mesh as soon as the file is read, with the figure's
    height kept for it: the figure (routing the traffic takes seconds) then fills it without a jump."""
    a = _analysis(store, key)
    shape = None if a is None else mesh_shape(a.index)
    if shape is None:
        return _HIDDEN, {}
    return _SHOWN, {"minHeight": f"{mesh_height(shape) + 14}px"}


def draw(
    store: FileStore,
    trigger: Trigger,
    key: str | None,
    model: str,
    metric: str,
    view: Any,
    core: int | None,
    timeline_drawn: str | None = None,
    maps_sent: str | None = None,
) -> Any:
    """The mesh figure for the view's range (a blank one for a file without a mesh: its section is hidden).

    `timeline_drawn` and `maps_sent` are not read: as inputs that follow the timeline's and the maps'
    callbacks, they make Dash ask for the mesh once those are answered, whenever they follow the same
    change (a timing model, core or range). Chromium draws one figure at a time: on a 64-core file the
    mesh (0.3 s) was drawn before the L2 map, or before the timeline."""
    a = _analysis(store, key, model)
    if a is None or mesh_shape(a.index) is None:
        return {}
    return mesh_view(a, model, metric, view_window(view, key), core, store.chiplets(key))


def click(
    store: FileStore, trigger: Trigger, data: dict[str, Any] | None, key: str | None, model: str, view: Any
) -> tuple[Any, ...]:
    """A tile clicked picks its core; a link clicked lists the transfers crossing it."""
    a = _analysis(store, key)
    points = (data or {}).get("points") or []
    custom = points[0].get("customdata") if points else None
    if a is None or not isinstance(custom, list):
        return no_update, no_update, no_update, no_update
    if len(custom) == TILE_FIELDS:  # a tile: core id first
        core = int(custom[0])
        focus: dict[str, Any] = {"workloads": [], "transfer": None, "core": core, "position": None}
        return core, focus, f"{a.core_label(core)} picked on the mesh", no_update
    if len(custom) == LINK_FIELDS and trigger.id == "mesh":  # a link: its key last
        rows = link_transfers(a, model, view_window(view, key), tuple(int(v) for v in custom[-4:]))
        if rows is None:
            return no_update, no_update, no_update, no_update
        return no_update, no_update, no_update, _crossing_table(custom[0], rows)
    return no_update, no_update, no_update, no_update


def link_transfers(
    a: Any, model: str, window: tuple[float, float] | None, link: tuple[int, ...]
) -> pd.DataFrame | None:
    """The transfers crossing directed `link` (x, y, to_x, to_y) under `model` in `window`."""
    loads = a.link_loads(model)
    if loads is None:
        return None
    rows = crossing(loads, a.noc_runs, link, window)  # type: ignore[arg-type]
    # Only the listed ones need their ends (a link of a 64-core file is crossed by thousands).
    listed = crossing_ends(a.noc_transfers, link, rows.head(MAX_LISTED))  # type: ignore[arg-type]
    return pd.concat([listed, rows.iloc[MAX_LISTED:].assign(source="", reached="")], ignore_index=True)


def register_mesh(app: Dash, store: FileStore) -> None:
    """Wire the mesh section's callbacks; no logic here."""
    wire(
        app,
        show,
        store,
        Output("mesh-section", "style"),
        Output("mesh-box", "style"),
        Input("shown", "data"),
    )
    wire(
        app,
        draw,
        store,
        Output("mesh", "figure"),
        Input("shown", "data"),
        Input("model", "value"),
        Input("mesh-metric", "value"),
        Input("view", "data"),
        Input("core", "value"),
        Input("timeline-drawn", "data"),
        Input("maps-sent", "data"),
    )
    wire(
        app,
        click,
        store,
        Output("core", "value", allow_duplicate=True),
        Output("focus", "data", allow_duplicate=True),
        Output("focus-note", "children", allow_duplicate=True),
        Output("mesh-links", "children"),
        Input("mesh", "clickData"),
        State("shown", "data"),
        State("model", "value"),
        State("view", "data"),
        prevent_initial_call=True,
    )


def _crossing_table(label: str, rows: Any) -> html.Div:
    """The transfers crossing one link: kind, transfer id, where from and to whom through the link (which
    port feeds which core), layer step, its cycles, bytes on the link."""
    total = int(rows["bytes"].sum()) if len(rows) else 0
    head = html.Div(
        f"link {label}: {len(rows):,} transfers, {format_bytes(total)}"
        + (f" (the {MAX_LISTED} heaviest listed)" if len(rows) > MAX_LISTED else ""),
        id="mesh-links-head",
        style={"fontSize": "13px", "fontWeight": 600, "margin": "4px 0"},
    )
    names = (
        "kind",
        "transfer",
        "from",
        "to (through this link)",
        "layer step",
        "step cycles",
        "bytes on this link",
    )
    body = [
        html.Tr(
            [
                html.Td(r.kind, style=_CELL),
                html.Td(str(r.transfer), style=_CELL),
                html.Td(r.source, style=_CELL),
                html.Td(r.reached, style=_CELL),
                html.Td(r.layer, style=_CELL),
                html.Td(
                    "not scheduled"
                    if r.start != r.start
                    else f"{r.start:,.0f}-{r.end:,.0f}",  # NaN: a wait cycle
                    style=_CELL,
                ),
                html.Td(f"{int(r.bytes):,}", style=_CELL),
            ]
        )
        for r in rows.head(MAX_LISTED).itertuples()
    ]
    table = html.Table(
        [html.Thead(html.Tr([html.Th(n, style=_CELL) for n in names])), html.Tbody(body)],
        style={"borderCollapse": "collapse"},
    )
    return html.Div([head, table])
