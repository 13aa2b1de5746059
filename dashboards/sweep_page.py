"""The sweep page of `irtools serve DIR` (at /sweep/): every file of the directory as one row, a
sortable and filterable table, and a scatter of any metric against any column with the Pareto front;
a click on a point opens that file's schedule view.

A Dash app of its own on the dashboard's server, so the schedule view's layout and callbacks stay as
they are. The table is irtools.sweep's (with the result cache, and DIR/manifest.csv when present),
built on the first visit (in a background thread; the result cache makes a page after
`irtools summarize` instant).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pandas as pd
from dash import Dash, Input, Output, dcc, html
from flask import Flask

from dashboards.sweep_figure import default_axes, numeric_columns, shown_columns, sweep_scatter

PREFIX = "/sweep/"


class SweepTable:
    """The sweep table of a directory, computed once, in a background thread started on first use."""

    def __init__(self, root: Path, max_bytes: int | None = None) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._table: pd.DataFrame | None = None
        self._error: str | None = None
        self._thread = threading.Thread(target=self._build, name="irtools sweep table", daemon=True)
        self._start = threading.Lock()

    def get(self, timeout: float | None = None) -> pd.DataFrame:
        """The sweep table, computed once in the background; waits at most `timeout` seconds for it."""
        with self._start:
            if self._thread.ident is None:
                self._thread.start()
        self._thread.join(timeout)
        if self._error:
            raise RuntimeError(self._error)
        if self._table is None:
            raise TimeoutError("the sweep table is still being computed")
        return self._table

    def _build(self) -> None:
        from irtools.sweep.directory import directory_table

        try:
            self._table = directory_table(self.root, self.max_bytes)
        except Exception as exc:  # noqa: BLE001 - shown on the page instead of a dead thread
            self._error = f"{type(exc).__name__}: {exc}"


def mount_sweep_page(server: Flask, root: Path, max_bytes: int | None = None) -> Dash:
    """Add the sweep page at /sweep/ to the dashboard's Flask server."""
    sweep = SweepTable(root, max_bytes)
    page = Dash(
        __name__,
        server=server,  # type: ignore[arg-type]  # Dash's annotation leaves out a Flask app
        url_base_pathname=PREFIX,
        title="irtools sweep",
        update_title="",
    )
    page.layout = lambda: _layout(sweep)
    _register(page, sweep)
    return page


def _layout(sweep: SweepTable) -> html.Div:
    try:
        table = sweep.get(timeout=120)
    except (RuntimeError, TimeoutError) as exc:
        return html.Div([html.H2("Sweep"), html.P(str(exc)), html.P("Reload the page to try again.")])
    x, y, color = default_axes(table)
    choices = numeric_columns(table)
    options = [{"label": c, "value": c} for c in choices]
    ok = int((table["status"] == "ok").sum())
    label = {"fontWeight": 600, "fontSize": "13px", "color": "#444"}
    return html.Div(
        [
            dcc.Location(id="sweep-url", refresh=True),
            html.Div(
                [html.H2("Sweep", style={"margin": "4px 0"}), html.A("schedule view", href="/")],
                style={"display": "flex", "gap": "16px", "alignItems": "baseline"},
            ),
            html.P(
                f"{len(table)} rows under {sweep.root.name}/ ({ok} analyzed)"
                + (", joined with manifest.csv" if (sweep.root / "manifest.csv").is_file() else "")
                + ". Click a point to open its schedule view; the table sorts and filters by column "
                "(the row under the headings).",
                style={"fontSize": "13px", "color": "#444"},
            ),
            html.Div(
                [
                    html.Span("x", style=label),
                    dcc.Dropdown(
                        id="sweep-x", options=options, value=x, clearable=False, style={"width": 230}
                    ),
                    html.Span("y", style=label),
                    dcc.Dropdown(
                        id="sweep-y", options=options, value=y, clearable=False, style={"width": 230}
                    ),
                    html.Span("colour", style=label),
                    dcc.Dropdown(id="sweep-color", options=options, value=color, style={"width": 230}),
                ],
                style={"display": "flex", "gap": "10px", "alignItems": "center", "flexWrap": "wrap"},
            ),
            dcc.Graph(id="sweep-scatter", config={"displaylogo": False}),
            _grid(table),
        ],
        style={"fontFamily": "sans-serif", "margin": "12px"},
    )


def _grid(table: pd.DataFrame) -> Any:
    """The table as an AG Grid: sort and filter per column (numbers by value, text by words), paged."""
    try:
        import dash_ag_grid as dag
    except ImportError:
        return html.P("The table needs dash-ag-grid: pip install 'irtools[sweep]'.")
    numeric = set(numeric_columns(table))
    columns = [
        {
            "field": c,
            "headerName": c,
            "filter": "agNumberColumnFilter" if c in numeric else "agTextColumnFilter",
        }
        for c in shown_columns(table)
    ]
    columns[0] |= {"pinned": "left"}
    return dag.AgGrid(
        id="sweep-table",
        rowData=_records(table),
        columnDefs=columns,
        defaultColDef={"sortable": True, "resizable": True, "floatingFilter": True, "minWidth": 90},
        dashGridOptions={"pagination": True, "paginationPageSize": 50, "suppressFieldDotNotation": True},
        columnSize="autoSize",
        style={"height": "620px"},
    )


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    plain = table.astype(object).where(table.notna(), None)
    return list(plain.to_dict("records"))


def _register(page: Dash, sweep: SweepTable) -> None:
    @page.callback(
        Output("sweep-scatter", "figure"),
        Input("sweep-x", "value"),
        Input("sweep-y", "value"),
        Input("sweep-color", "value"),
    )
    def scatter(x: str, y: str, color: str | None) -> Any:
        return sweep_scatter(sweep.get(), x, y, color)

    @page.callback(
        Output("sweep-url", "href"), Input("sweep-scatter", "clickData"), prevent_initial_call=True
    )
    def open_schedule(click: Any) -> str:
        point = (click or {}).get("points", [{}])[0]
        path = point.get("customdata")
        if not path:
            from dash.exceptions import PreventUpdate

            raise PreventUpdate
        return "/?" + urlencode({"file": path})
