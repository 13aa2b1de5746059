"""The page: file picker and upload, controls, timeline, occupancy maps, findings, downloads."""

from __future__ import annotations

from dash import dcc, html
from dash.development.base_component import Component

from dashboards.data import FINDING_COLUMNS
from dashboards.measured_view import measured_section
from irtools.analysis import MODELS, TABLES

_ROW = {"display": "flex", "gap": "16px", "alignItems": "center", "flexWrap": "wrap", "margin": "8px 0"}
_LABEL = {"fontWeight": 600, "fontSize": "13px", "color": "#444"}
SEVERITY_COLORS = {"error": "#fde2e1", "warning": "#fff4d6", "info": "#eef3fb"}
MAX_FINDING_ROWS = 300
_CELL = {
    "border": "1px solid #ddd",
    "padding": "3px 6px",
    "fontSize": "13px",
    "textAlign": "left",
    "verticalAlign": "top",
}


def findings_table(rows: list[dict[str, object]], total: int) -> html.Div:
    """Findings as a plain table; each row clickable (pattern-matching id {"type": "finding", "index": n})."""
    if total == 0:
        return html.Div("No findings match.", style={"padding": "8px", "fontSize": "13px"})
    head = html.Tr([html.Th(c, style={**_CELL, "background": "#f3f3f3"}) for c in FINDING_COLUMNS])
    body = [
        html.Tr(
            [html.Td("" if row[c] is None else str(row[c]), style=_CELL) for c in FINDING_COLUMNS],
            id={"type": "finding", "index": row["id"]},
            n_clicks=0,
            className="finding-row",
            style={"background": SEVERITY_COLORS.get(str(row["severity"]), "white"), "cursor": "pointer"},
        )
        for row in rows[:MAX_FINDING_ROWS]
    ]
    more = [
        html.Div(
            f"showing {MAX_FINDING_ROWS} of {total}; narrow the filters",
            style={"padding": "6px", "fontSize": "12px"},
        )
    ]
    table = html.Table(
        [html.Thead(head), html.Tbody(body)], style={"borderCollapse": "collapse", "width": "100%"}
    )
    return html.Div([table, *more] if total > MAX_FINDING_ROWS else [table])


def _labeled(label: str, control: Component, width: str | None = None) -> html.Div:
    style = {"minWidth": width} if width else {}
    return html.Div([html.Div(label, style=_LABEL), control], style=style)


def build_layout(files: list[str], selected: str | None, max_upload_bytes: int) -> html.Div:
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
                ],
                style=_ROW,
            ),
            html.Div(
                id="status", style={"fontSize": "14px", "margin": "4px 0 8px", "whiteSpace": "pre-wrap"}
            ),
            html.Div(
                [
                    _labeled(
                        "Timing model",
                        dcc.RadioItems(
                            id="model",
                            options=[{"label": m, "value": m} for m in MODELS],
                            value="dependency",
                            inline=True,
                            inputStyle={"marginRight": "4px", "marginLeft": "8px"},
                        ),
                    ),
                    _labeled(
                        "Show",
                        dcc.Checklist(
                            id="arrows",
                            options=[{"label": "cross-core transfers", "value": "arrows"}],
                            value=["arrows"],
                            inputStyle={"marginRight": "4px"},
                        ),
                    ),
                    _labeled(
                        "Layers",
                        dcc.Dropdown(
                            id="layers", multi=True, placeholder="all layers", style={"width": "360px"}
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
            dcc.Loading(dcc.Graph(id="timeline", config={"displaylogo": False}), type="dot"),
            measured_section(),
            html.Div(
                [
                    _labeled("Core", dcc.Dropdown(id="core", clearable=False, style={"width": "140px"})),
                    html.Div(id="focus-note", style={"fontSize": "13px", "color": "#444"}),
                ],
                style=_ROW,
            ),
            html.Div(
                [
                    html.Div(
                        dcc.Loading(dcc.Graph(id="l2-map", config={"displaylogo": False}), type="dot"),
                        style={"flex": "3", "minWidth": "520px"},
                    ),
                    html.Div(
                        dcc.Loading(dcc.Graph(id="wl0-map", config={"displaylogo": False}), type="dot"),
                        style={"flex": "2", "minWidth": "380px"},
                    ),
                ],
                style={"display": "flex", "gap": "12px", "flexWrap": "wrap"},
            ),
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
                ],
                style=_ROW,
            ),
            html.Div(
                id="findings", style={"maxHeight": "420px", "overflowY": "auto", "border": "1px solid #ddd"}
            ),
            html.Div(
                [
                    _labeled(
                        "Download table (CSV, as irtools analyze writes it)",
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
            dcc.Store(id="focus"),
        ],
        style={"fontFamily": "sans-serif", "padding": "10px 18px", "maxWidth": "1600px"},
    )
