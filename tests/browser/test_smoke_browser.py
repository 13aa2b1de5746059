"""Smoke test of the browser-test setup: a tiny Dash app renders a Plotly graph in headless Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import plotly.graph_objects as go
from dash import Dash, dcc, html


def test_dash_app_renders_a_plotly_graph(dash_duo: Any, tmp_path: Path) -> None:
    app = Dash(__name__)
    figure = go.Figure(go.Bar(x=["core 0", "core 1", "core 2"], y=[3, 5, 2]), layout={"title": "smoke"})
    app.layout = html.Div([html.H1("irtools browser smoke"), dcc.Graph(id="graph", figure=figure)], id="root")

    dash_duo.start_server(app)
    dash_duo.wait_for_text_to_equal("h1", "irtools browser smoke")
    dash_duo.wait_for_element("#graph .main-svg")
    assert len(dash_duo.find_elements("#graph .bars path")) == 3, "expected one bar per core"

    assert dash_duo.get_logs() == [], "browser console errors"
    assert dash_duo.driver.save_screenshot(str(tmp_path / "smoke.png"))
