"""A sweep's scatter: any metric against any column, coloured by a third, with the Pareto front."""

from __future__ import annotations

import html
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from irtools.sweep.pareto import pareto_front
from irtools.sweep.row import SWEEP

NAME_UNITS = {
    "l2_kb": "KB, from the name",
    "dram_gbps": "GB/s, from the name",
    "noc_bw_in_name": "B/cycle, from the name",
}
"""Units of the columns a file name gives (the sweep table's own columns declare theirs)."""


def axis_title(column: str) -> str:
    """`peak_l2_max (bytes)`: the column with its unit, as the sweep table declares it."""
    units = {c.name: c.unit for c in SWEEP.columns}
    unit = units.get(column) or NAME_UNITS.get(column, "")
    return f"{column} ({unit})" if unit else column


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
    """The scatter's first (x, y, colour): the defaults where the table has them, else numeric columns it
    has."""
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
    if "peak_l2_fraction" in shown:  # the flag's number: the red square itself takes no hover
        names = [
            n + ("" if pd.isna(f) else f" (peak L2 {f:.0%} of its L2 size)")
            for n, f in zip(names, pd.to_numeric(shown["peak_l2_fraction"], errors="coerce"), strict=True)
        ]
    marker: dict[str, Any] = {"size": 10, "line": {"width": 1, "color": "#333"}}
    if color and color in shown and shown[color].notna().any():
        marker.update(
            color=pd.to_numeric(shown[color], errors="coerce"),
            colorscale="Viridis",
            showscale=True,
            colorbar={"title": {"text": axis_title(color)}},
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
        xaxis_title=axis_title(x),
        yaxis_title=axis_title(y),
        height=460,
        margin={"l": 70, "r": 20, "t": 30, "b": 50},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
        plot_bgcolor="white",
    )
    figure.update_xaxes(gridcolor="#eee", zeroline=False)
    figure.update_yaxes(gridcolor="#eee", zeroline=False)
    _mark_shared_points(figure, shown, x, y)
    _mark_over_l2(figure, shown, x, y)
    return figure


def _mark_shared_points(figure: go.Figure, shown: pd.DataFrame, x: str, y: str) -> None:
    """Runs that share both values (Gemini writes the same IR at NoC 16 and 64) are one dot: mark it `x2`,
    and say above the plot how many runs the dots hold."""
    if shown.empty:
        return
    groups = shown.groupby([x, y], dropna=True)
    sizes = groups.size()
    shared = sizes[sizes > 1]
    if shared.empty:
        return
    figure.add_trace(
        go.Scatter(
            x=[k[0] for k in shared.index],
            y=[k[1] for k in shared.index],
            mode="text",
            text=[f"x{n}" for n in shared],
            textposition="top right",
            textfont={"size": 13, "color": "#000"},
            # No hover of its own: a click must reach the run's dot under it (its customdata opens the run).
            hoverinfo="skip",
            name="runs on one dot",
        )
    )
    # As the title: above the legend, where no control covers it.
    figure.update_layout(
        title={
            "text": f"{len(sizes)} dots show {len(shown)} runs: runs with the same values (runs that wrote the "
            "same IR, such as NoC 16 and 64) share a dot, marked x2 and more",
            "font": {"size": 12, "color": "#444"},
            "x": 0.01,
            "y": 0.985,
            "yref": "container",
            "yanchor": "top",
        },
        margin={"t": 64},
    )


def _mark_over_l2(figure: go.Figure, shown: pd.DataFrame, x: str, y: str) -> None:
    """Runs whose schedule needs more L2 than the run has (peak_l2_fraction above 1) get a red square."""
    if "peak_l2_fraction" not in shown:
        return
    over = shown[pd.to_numeric(shown["peak_l2_fraction"], errors="coerce") > 1]
    if over.empty:
        return
    figure.add_trace(
        go.Scatter(
            x=over[x],
            y=over[y],
            mode="markers",
            marker={"size": 20, "symbol": "square-open", "color": "#c00", "line": {"width": 2}},
            hoverinfo="skip",  # the run's own dot says it (peak L2 share) and takes the click
            name="needs more L2 than the run has",
        )
    )
