"""A sweep's scatter: any metric against any column, coloured by a third, with the Pareto front."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from irtools.sweep.pareto import pareto_front

DEFAULT_AXES = ("peak_l2_max", "makespan_dependency", "l2_kb")
"""Makespan against peak L2, coloured by the L2 size in the name: the trade-off a sweep explores."""


def numeric_columns(table: pd.DataFrame) -> list[str]:
    """Columns a scatter can use: numbers with at least one value."""
    return [
        c
        for c in table.columns
        if pd.api.types.is_numeric_dtype(table[c])
        and not pd.api.types.is_bool_dtype(table[c])
        and table[c].notna().any()
    ]


def shown_columns(table: pd.DataFrame) -> list[str]:
    """The table's columns without those empty in every row (a naming scheme's unused fields)."""
    return [c for c in table.columns if c in ("path", "status") or table[c].notna().any()]


def default_axes(table: pd.DataFrame) -> tuple[str, str, str | None]:
    usable = numeric_columns(table)
    x, y, color = DEFAULT_AXES
    x = x if x in usable else (usable[0] if usable else x)
    y = y if y in usable else (usable[-1] if usable else y)
    return x, y, color if color in usable else next((c for c in ("batch", "cores") if c in usable), None)


def sweep_scatter(table: pd.DataFrame, x: str, y: str, color: str | None) -> go.Figure:
    """One point per row with both values (hover: file and the three values; customdata: the path),
    the Pareto front (both minimized) as a line through its points."""
    shown = table.dropna(subset=[x, y]) if x in table and y in table else table.iloc[:0]
    names = [html.escape(str(p).rsplit("/", 1)[-1]) for p in shown.get("path", [])]
    marker: dict[str, Any] = {"size": 10, "line": {"width": 1, "color": "#333"}}
    if color and color in shown and shown[color].notna().any():
        marker.update(
            color=pd.to_numeric(shown[color], errors="coerce"),
            colorscale="Viridis",
            showscale=True,
            colorbar={"title": {"text": color}},
        )
    figure = go.Figure(
        go.Scatter(
            x=shown[x] if len(shown) else [],
            y=shown[y] if len(shown) else [],
            mode="markers",
            marker=marker,
            name="runs",
            text=names,
            customdata=list(shown["path"]) if "path" in shown else [],
            hovertemplate=f"%{{text}}<br>{x}=%{{x}}<br>{y}=%{{y}}"
            + (f"<br>{color}=%{{marker.color}}" if "color" in marker else "")
            + "<extra></extra>",
        )
    )
    if len(shown):
        front = shown.loc[pareto_front(shown, x, y)]
        figure.add_trace(
            go.Scatter(
                x=front[x],
                y=front[y],
                mode="lines+markers",
                line={"color": "#d62728", "width": 2, "shape": "hv"},
                marker={"size": 16, "symbol": "circle-open", "color": "#d62728", "line": {"width": 2}},
                name="Pareto front (both minimized)",
                hoverinfo="skip",
            )
        )
    figure.update_layout(
        xaxis_title=x,
        yaxis_title=y,
        height=460,
        margin={"l": 70, "r": 20, "t": 30, "b": 50},
        legend={"orientation": "h", "y": 1.08},
        plot_bgcolor="white",
    )
    figure.update_xaxes(gridcolor="#eee", zeroline=False)
    figure.update_yaxes(gridcolor="#eee", zeroline=False)
    return figure
