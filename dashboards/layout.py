"""The page: file picker and upload, controls, timeline, occupancy maps, findings, downloads."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from dash import dcc, html
from dash.development.base_component import Component

from dashboards.counters_view import counter_section, heat_section
from dashboards.data import FINDING_COLUMNS
from dashboards.figures import STALL_COLOR, placeholder
from dashboards.layer_view import layer_section
from dashboards.measured_view import measured_section
from dashboards.mesh_view import mesh_section
from dashboards.timeline import ARROWS_BY_DEFAULT
from irtools.analysis import MODELS, TABLES

_ROW = {"display": "flex", "gap": "16px", "alignItems": "center", "flexWrap": "wrap", "margin": "8px 0"}
_LABEL = {"fontWeight": 600, "fontSize": "13px", "color": "#444"}
SEVERITY_COLORS = {"error": "#fde2e1", "warning": "#fff4d6", "info": "#eef3fb"}
GRAPH_CONFIG: Any = {
    "displaylogo": False,
    # Fewer buttons: the bar stays clear of the figure's title on narrow panels.
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"],
}
FINDINGS_PER_PAGE = 50
"""Rows of the findings table on one page: a few dozen DOM rows draw at once, thousands froze the page."""
_CELL = {
    "border": "1px solid #ddd",
    "padding": "3px 6px",
    "fontSize": "13px",
    "textAlign": "left",
    "verticalAlign": "top",
}
_SELECTED = {"outline": "3px solid #111", "outlineOffset": "-2px", "fontWeight": 600}


def findings_table(rows: list[dict[str, object]], total: int, selected: int | None = None) -> html.Div:
    """One page of findings as a table; each row clickable (pattern-matching id
    {"type": "finding", "index": n}); the row of finding `selected` is outlined."""
    if total == 0:
        return html.Div("No findings match.", style={"padding": "8px", "fontSize": "13px"})
    head = html.Tr([html.Th(c, style={**_CELL, "background": "#f3f3f3"}) for c in FINDING_COLUMNS])
    body = [
        html.Tr(
            [html.Td("" if row[c] is None else str(row[c]), style=_CELL) for c in FINDING_COLUMNS],
            id={"type": "finding", "index": row["id"]},
            n_clicks=0,
            className="finding-row selected" if row["id"] == selected else "finding-row",
            style={
                "background": SEVERITY_COLORS.get(str(row["severity"]), "white"),
                "cursor": "pointer",
                **(_SELECTED if row["id"] == selected else {}),
            },
        )
        for row in rows
    ]
    table = html.Table(
        [html.Thead(head), html.Tbody(body)], style={"borderCollapse": "collapse", "width": "100%"}
    )
    return html.Div([table])


def page_note(page: int, pages: int, total: int) -> str:
    """'rows 51-100 of 10,000 (page 2 of 200)'."""
    if total == 0:
        return ""
    first = page * FINDINGS_PER_PAGE + 1
    last = min(total, (page + 1) * FINDINGS_PER_PAGE)
    return f"rows {first:,}-{last:,} of {total:,} (page {page + 1} of {pages})"


COMPACT_FROM = 17
"""From this many cores the header shows one small cell per core, laid out as the mesh, instead of cards."""
LOADING_POLL_MS = 700
"""How often the page asks what loading the file does now."""


def summary_header(
    first_line: str,
    makespans: dict[str, int | None],
    unscheduled: int,
    model: str,
    cores: list[dict[str, Any]],
    bottleneck: int | None,
    balance_note: str = "",
    columns: int | None = None,
) -> html.Div:
    """The file in one line, makespan per timing model, the balance of the cores, and per core its busy
    share under the selected model and its peak L2: a card per core up to 16 cores, past that a small
    cell per core in a grid of `columns` (the mesh's width) so that 64 cores fit one glance.
    The bottleneck core (only when measurably busier, see irtools.analysis.balance) is framed."""
    chips = [
        html.Span(
            f"makespan ({m}): "
            + (f"{v:,} cycles" if v is not None else f"none ({unscheduled} unschedulable)"),
            style={
                "padding": "2px 8px",
                "borderRadius": "10px",
                "background": "#e8eef7" if m == model else "#f3f3f3",
                "fontWeight": 600 if m == model else 400,
            },
        )
        for m, v in makespans.items()
    ]
    most = max((int(c.get("busy") or 0) for c in cores), default=0)
    compact = len(cores) >= COMPACT_FROM
    tiles = [(_core_cell if compact else _core_card)(c, c["core_id"] == bottleneck, most) for c in cores]
    grid = (
        {"gridTemplateColumns": f"repeat({columns}, 34px)", "gap": "3px"}
        if compact and columns
        else {"gridTemplateColumns": "repeat(auto-fill, minmax(34px, 34px))", "gap": "3px"}
        if compact
        else {"gridTemplateColumns": "repeat(auto-fill, minmax(170px, 1fr))", "gap": "6px"}
    )
    note = html.Div(
        balance_note, id="balance-note", style={"fontSize": "13px", "color": "#333", "margin": "2px 0"}
    )
    legend = (
        html.Div(
            "one cell per core as placed on the mesh: busy share of the makespan (hover for core, L2 peak)",
            style={"fontSize": "12px", "color": "#666"},
        )
        if compact
        else None
    )
    return html.Div(
        [
            html.Div(first_line, style={"fontWeight": 600}),
            html.Div(chips, style={"display": "flex", "gap": "8px", "flexWrap": "wrap", "margin": "4px 0"}),
            note,
            *([legend] if legend else []),
            html.Div(
                tiles, className="core-strip" if compact else "core-cards", style={"display": "grid", **grid}
            ),
        ]
    )


def _busy_text(core: dict[str, Any]) -> tuple[str, float | None]:
    """`99% busy`, or under noc with stalls `74% compute, 21% NoC stall`; with no makespan (a wait cycle)
    the busy cycles: never a bare `n/a`."""
    share = core["utilization"]
    if isinstance(share, float) and not math.isnan(share):
        stall = float(core.get("noc_stall_share") or 0.0)
        if stall >= 0.005:  # shown as a percent: under half a percent reads 0%
            compute = float(core.get("compute_share") or 0.0)
            return f"{compute:.0%} compute, {stall:.0%} NoC stall", min(compute, 1.0)
        return f"{share:.0%} busy", min(share, 1.0)
    busy = core.get("busy")
    return (f"busy {int(busy):,} cycles (no makespan)" if busy is not None else "busy: unknown"), None


def _core_card(c: dict[str, Any], is_bottleneck: bool, most: int) -> html.Div:
    text, share = _busy_text(c)
    width = share if share is not None else (int(c.get("busy") or 0) / most if most else 0.0)
    stall = float(c.get("noc_stall_share") or 0.0) if share is not None else 0.0
    return html.Div(
        [
            html.Div(
                [
                    html.B(c.get("label") or f"core {c['core_id']}"),
                    html.Span(" bottleneck" if is_bottleneck else "", style={"color": "#b00"}),
                ]
            ),
            html.Div(
                [
                    html.Div(
                        style={"width": f"{width * 100:.0f}%", "height": "100%", "background": "#4C78A8"}
                    ),
                    html.Div(
                        className="stall-bar",
                        style={"width": f"{stall * 100:.0f}%", "height": "100%", "background": STALL_COLOR},
                    ),
                ],
                style={"height": "6px", "background": "#e5e5e5", "margin": "2px 0", "display": "flex"},
                title="share of the makespan computing (blue) and stalled on the NoC (pink)"
                if share is not None
                else "busy cycles against the busiest core",
            ),
            html.Div(text, className="busy-text", style={"color": "#555"}),
            html.Div(f"L2 peak {c['peak_l2']}", style={"color": "#555"}),
        ],
        className="core-card",
        style={
            "border": "2px solid #b00" if is_bottleneck else "1px solid #ddd",
            "borderRadius": "5px",
            "padding": "3px 6px",
            "fontSize": "12px",
        },
    )


def _core_cell(c: dict[str, Any], is_bottleneck: bool, most: int) -> html.Div:
    """A 34 px cell: blue as deep as the core computes, its compute percent on it, the rest on hover."""
    text, share = _busy_text(c)
    level = share if share is not None else (int(c.get("busy") or 0) / most if most else 0.0)
    label = c.get("label") or f"core {c['core_id']}"
    position = c.get("position")
    where = {"gridColumn": position[0] + 1, "gridRow": position[1] + 1} if position else {}
    return html.Div(
        f"{level:.0%}" if share is not None else "–",
        title=f"{label}: {text}, L2 peak {c['peak_l2']}" + (" (bottleneck)" if is_bottleneck else ""),
        className="core-cell",
        style={
            **where,
            "height": "22px",
            "fontSize": "10px",
            "lineHeight": "22px",
            "textAlign": "center",
            "color": "white" if level > 0.55 else "#222",
            "background": f"rgba(76, 120, 168, {0.15 + 0.85 * level:.2f})",
            "outline": "2px solid #b00" if is_bottleneck else "none",
            "borderRadius": "3px",
        },
    )


def arrow_options(count: int | None) -> list[dict[str, str]]:
    """Choices for the transfer arrows; `auto` draws all of them up to ARROWS_BY_DEFAULT."""
    total = f" ({count:,})" if count is not None else ""
    return [
        {"label": f"auto: all up to {ARROWS_BY_DEFAULT}, else the selection's", "value": "auto"},
        {"label": f"all{total}", "value": "all"},
        {"label": "the selection's", "value": "selection"},
    ]


def _labeled(label: str, control: Component, width: str | None = None) -> html.Div:
    style = {"minWidth": width} if width else {}
    return html.Div([html.Div(label, style=_LABEL), control], style=style)


def build_layout(
    files: list[str],
    selected: str | None,
    max_upload_bytes: int,
    models: Sequence[str] = MODELS,
    opening: str = "",
) -> html.Div:
    """The page; `opening` says what the first file is while it loads (`reading x.json (67 MB)…`)."""
    return html.Div(
        [
            html.Div(
                [
                    html.H2("irtools", style={"margin": "0 16px 0 0", "fontSize": "22px"}),
                    _labeled(
                        "IR file",
                        dcc.Dropdown(
                            id="file-select",
                            options=[{"label": f, "value": f} for f in files],
                            value=selected,
                            placeholder="pick an IR file from the served directory",
                            clearable=False,
                            style={"width": "560px"},
                        ),
                    ),
                    dcc.Upload(
                        id="upload",
                        children=html.Div(
                            ["or drop / ", html.A("choose a file", style={"textDecoration": "underline"})]
                        ),
                        style={
                            "border": "1px dashed #999",
                            "borderRadius": "6px",
                            "padding": "8px 14px",
                            "fontSize": "13px",
                            "cursor": "pointer",
                        },
                        accept=".json,application/json",
                        multiple=False,
                    ),
                    html.Div(
                        f"upload limit {max_upload_bytes / 1e6:.0f} MB",
                        style={"fontSize": "12px", "color": "#777"},
                    ),
                    html.A("sweep table of all files", href="/sweep/", style={"fontSize": "13px"}),
                ],
                style=_ROW,
            ),
            html.Div(id="message", style={"fontSize": "14px", "color": "#b00", "whiteSpace": "pre-wrap"}),
            html.Div(opening, id="status", style={"fontSize": "14px", "margin": "4px 0 8px"}),
            html.Div(id="loading-note", style={"fontSize": "13px", "color": "#555"}),
            dcc.Interval(id="loading-poll", interval=LOADING_POLL_MS, disabled=not opening),
            html.Div(
                [
                    _labeled(
                        "Timing model",
                        dcc.RadioItems(
                            id="model",
                            options=[{"label": m, "value": m} for m in models],
                            value="dependency",
                            inline=True,
                            inputStyle={"marginRight": "4px", "marginLeft": "8px"},
                        ),
                    ),
                    _labeled(
                        "NoC B/cycle per link",
                        dcc.Dropdown(
                            id="noc-bw", clearable=False, placeholder="none", style={"width": "120px"}
                        ),
                    ),
                    _labeled(
                        "Cross-core transfer arrows",
                        dcc.RadioItems(
                            id="arrows",
                            options=arrow_options(None),
                            value="auto",
                            inline=True,
                            inputStyle={"marginRight": "4px", "marginLeft": "8px"},
                        ),
                    ),
                    _labeled(
                        "Layers",
                        dcc.Dropdown(
                            id="layers", multi=True, placeholder="all layers", style={"width": "260px"}
                        ),
                    ),
                    _labeled(
                        "Transfer id",
                        dcc.Input(
                            id="transfer",
                            type="number",
                            min=0,
                            step=1,
                            debounce=True,
                            placeholder="e.g. 12",
                            style={"width": "110px"},
                        ),
                    ),
                ],
                style=_ROW,
            ),
            # The chip comes before the timeline: on 64 cores the timeline is taller than a screen.
            mesh_section(),
            dcc.Loading(dcc.Graph(id="timeline", config=GRAPH_CONFIG, figure=placeholder()), type="dot"),
            counter_section(),
            measured_section(),
            html.Div(
                [
                    _labeled("Core", dcc.Dropdown(id="core", clearable=False, style={"width": "140px"})),
                    _labeled(
                        "Map x axis",
                        dcc.RadioItems(
                            id="map-axis",
                            options=[
                                {"label": "cycles (as the timeline)", "value": "cycles"},
                                {"label": "workload position", "value": "position"},
                            ],
                            value="cycles",
                            inline=True,
                            inputStyle={"marginRight": "4px", "marginLeft": "8px"},
                        ),
                    ),
                    html.Div(id="focus-note", style={"fontSize": "13px", "color": "#444"}),
                ],
                style=_ROW,
            ),
            html.Div(
                [
                    html.Div(
                        dcc.Loading(
                            dcc.Graph(id="l2-map", config=GRAPH_CONFIG, figure=placeholder()), type="dot"
                        ),
                        style={"flex": "3", "minWidth": "520px"},
                    ),
                    html.Div(
                        dcc.Loading(
                            dcc.Graph(id="wl0-map", config=GRAPH_CONFIG, figure=placeholder()), type="dot"
                        ),
                        id="wl0-box",
                        style={"flex": "2", "minWidth": "380px"},
                    ),
                ],
                style={"display": "flex", "gap": "12px", "flexWrap": "wrap"},
            ),
            dcc.Loading(html.Div(id="l2-peak", style={"margin": "4px 0 8px"}), type="dot"),
            heat_section(),
            layer_section(),
            html.Div(
                [
                    html.H3("Findings", style={"fontSize": "17px", "margin": "0"}),
                    dcc.Loading(html.Span(id="findings-summary", style={"fontSize": "14px"}), type="dot"),
                ],
                style={**_ROW, "margin": "14px 0 6px"},
            ),
            html.Div(
                [
                    _labeled(
                        "Severity",
                        dcc.Dropdown(
                            id="filter-severity", multi=True, placeholder="all", style={"width": "220px"}
                        ),
                    ),
                    _labeled(
                        "Code",
                        dcc.Dropdown(
                            id="filter-code", multi=True, placeholder="all", style={"width": "260px"}
                        ),
                    ),
                    _labeled(
                        "Core",
                        dcc.Dropdown(
                            id="filter-core", multi=True, placeholder="all", style={"width": "200px"}
                        ),
                    ),
                    html.Div(
                        "click a row to focus its workload",
                        style={"fontSize": "12px", "color": "#666", "marginTop": "16px"},
                    ),
                    html.Div(
                        [
                            html.Button("‹ previous", id="findings-prev", n_clicks=0),
                            html.Span(id="findings-page-note", style={"fontSize": "13px", "margin": "0 8px"}),
                            html.Button("next ›", id="findings-next", n_clicks=0),
                        ],
                        style={"marginTop": "16px", "marginLeft": "auto"},
                    ),
                ],
                style=_ROW,
            ),
            html.Div(
                id="findings", style={"maxHeight": "420px", "overflowY": "auto", "border": "1px solid #ddd"}
            ),
            html.Div(
                [
                    _labeled(
                        "Download table (CSV, as irtools analyze --excel-safe writes it)",
                        dcc.Dropdown(
                            id="table-name",
                            options=list(TABLES),
                            value="timeline",
                            clearable=False,
                            style={"width": "240px"},
                        ),
                    ),
                    html.Button(
                        "Download", id="download-button", style={"height": "36px", "marginTop": "18px"}
                    ),
                    dcc.Download(id="download"),
                ],
                style=_ROW,
            ),
            dcc.Store(id="current", data=selected),
            # The file the views draw: `current` once it is loaded (the loading poll sets it).
            dcc.Store(id="shown"),
            dcc.Store(id="focus"),
            dcc.Store(id="view"),
            # The timing model the maps were last sent under: the mesh's input, so that Dash asks for the
            # mesh after the maps (the browser draws one figure at a time: the maps first).
            dcc.Store(id="maps-sent"),
            dcc.Store(id="findings-page", data=0),
            dcc.Store(id="upload-reset"),
            # Two locations: "url" is read (a shared link restores its view), "url-write" is written
            # (the view as a link); one read-write component would make a callback cycle.
            dcc.Location(id="url", refresh=False),
            dcc.Location(id="url-write", refresh=False),
        ],
        style={"fontFamily": "sans-serif", "padding": "10px 18px", "maxWidth": "1600px"},
    )
