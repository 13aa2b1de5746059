"""The dashboard's layer view: Gemini's cost of each layer (the `layer_cost` table), or why there is none.

The table is irtools.analysis.layer_cost's, as `irtools analyze --noc-bw` writes it; the page only
formats it: cycles with thousands separators, bytes exact (they equal the scheduler's `DRAM acc`), energy
in readable units, an undetermined energy term as `n/d` with its reason on hover.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from dash import Dash, Input, Output, dcc, html

from dashboards.data import FileStore
from dashboards.wiring import Trigger, wire
from irtools.analysis import Analysis
from irtools.analysis.energy import TERMS
from irtools.analysis.tables import LAYER_COST
from irtools.analysis.units import format_bytes, format_energy

_CELL = {
    "border": "1px solid #ddd",
    "padding": "2px 6px",
    "fontSize": "12px",
    "textAlign": "right",
    "whiteSpace": "nowrap",
}
_HEAD = {**_CELL, "background": "#f3f3f3", "textAlign": "center", "position": "sticky", "top": "0"}
BOUND_COLORS = {"compute": "#e8eef7", "NoC": "#fde2cc", "DRAM": "#f4d7e8"}
"""The bound cell's background: compute blue-grey, NoC orange (the links' hue), DRAM pink."""

SHOWN = (
    ("layer_name", "layer"),
    ("groups", "groups"),
    ("compute_time", "compute"),
    ("noc_time", "NoC"),
    ("dram_time", "DRAM"),
    ("time", "time"),
    ("bound", "bound"),
    ("link", "bounding link"),
    ("link_bytes", "link bytes"),
    ("hops", "hops"),
    ("dram_bytes", "DRAM bytes"),
    ("noc_energy", "NoC energy"),
    ("nop_energy", "NoP energy"),
    ("dram_energy", "DRAM energy"),
    ("mac_energy", "MAC energy"),
    ("buffers_energy", "buffers energy"),
)
"""The layer_cost columns the view shows, with their headings (units come from the table's spec)."""
ENERGY_COLUMNS = tuple(f"{t}_energy" for t in TERMS)
"""The energy columns, in Gemini's printout order."""


def layer_section() -> html.Div:
    """The layer view's place on the page, filled by `show`."""
    return html.Div(
        [
            html.H3("Cost per layer (Gemini's)", style={"fontSize": "17px", "margin": "14px 0 2px"}),
            dcc.Loading(html.Div(id="layer-cost"), type="dot"),
        ],
        id="layer-section",
    )


def show(store: FileStore, trigger: Trigger, key: str | None) -> Any:
    """The layer view of the file (its layer_cost table, or why it has none)."""
    entry = store.find(key)
    if entry is None:
        return ""
    # No wait for the first view: the noc model's steps this table sums are computed for that view already.
    return layer_cost_view(entry.analysis)


def headings() -> list[tuple[str, str, str]]:
    """(column, heading with unit, the column's documentation) for every column shown."""
    spec = {c.name: c for c in LAYER_COST.columns}
    return [
        # An energy cell carries its own unit (`30.1 µJ`): its heading names none.
        (
            name,
            f"{text} ({spec[name].unit})" if spec[name].unit and name not in ENERGY_COLUMNS else text,
            spec[name].doc,
        )
        for name, text in SHOWN
    ]


def layer_cost_view(a: Analysis) -> Any:
    """The layer_cost table with a totals row and the undetermined energy terms named, or why it is empty."""
    why = a.layer_cost_absent()
    if why is not None:
        return html.Div(f"No per-layer cost: {why}.", id="layer-cost-absent", style={"fontSize": "13px"})
    table = a.layer_cost
    missing = a.energy_model.undetermined()
    columns = headings()
    head = html.Tr([html.Th(text, title=doc, style=_HEAD) for _, text, doc in columns])
    rows = [_row(r, missing) for r in table.to_dict("records")]
    total = _row(totals(table), missing, bold=True)
    note = "; ".join(f"{t}: {why}" for t, why in missing.items())
    bandwidth = a.noc_model.bandwidth if a.noc_model else None
    return html.Div(
        [
            html.Div(
                f"{len(table):,} layers at NoC {bandwidth} B/cycle per link; `time` sums to the noc makespan "
                "where layers run one after another. Hover a heading for its meaning.",
                style={"fontSize": "12px", "color": "#666"},
            ),
            html.Div(
                html.Table(
                    [html.Thead(head), html.Tbody([*rows, total])],
                    id="layer-cost-table",
                    style={"borderCollapse": "collapse"},
                ),
                style={"maxHeight": "360px", "overflow": "auto", "border": "1px solid #ddd"},
            ),
            html.Div(
                f"n/d: not determined by the IR, left out of the energy ({note})" if missing else "",
                id="layer-cost-undetermined",
                style={"fontSize": "12px", "color": "#666"},
            ),
        ]
    )


def totals(table: pd.DataFrame) -> dict[str, Any]:
    """The table's sums: groups, times, bytes, hops, and each energy term (NaN where undetermined)."""
    # link_bytes are not summed: each layer's are on its own link.
    summed = ("groups", "compute_time", "noc_time", "time", "hops", "dram_bytes")
    out: dict[str, Any] = {c: table[c].sum() for c in summed}
    out["dram_time"] = table["dram_time"].sum() if table["dram_time"].notna().any() else pd.NA
    out |= {c: table[c].sum(min_count=1) for c in ENERGY_COLUMNS}
    return {"layer_name": "all layers", "bound": "", "link": "", "link_bytes": None, **out}


def _row(r: dict[str, Any], missing: dict[str, str], bold: bool = False) -> html.Tr:
    cells = []
    for name, _, _ in headings():
        value = r[name]
        style = dict(_CELL)
        title = None
        if name in ("layer_name", "link"):
            style["textAlign"] = "left"
        if name == "bound" and value in BOUND_COLORS:
            style["background"] = BOUND_COLORS[value]
        text = _cell_text(name, value)
        if name in ENERGY_COLUMNS and text == "":
            term = name.removesuffix("_energy")
            text, title = "n/d", missing.get(term, "not determined")
        elif name in ("link_bytes", "dram_bytes") and text:
            title = format_bytes(float(value))
        cells.append(html.Td(text, title=title, style=style))
    return html.Tr(cells, style={"fontWeight": 600} if bold else {})


def _cell_text(name: str, value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if name in ENERGY_COLUMNS:
        return format_energy(float(value))
    if name == "noc_time":
        return f"{float(value):,.1f}"  # Gemini's NoCtime is not truncated; `time` is
    if isinstance(value, str):
        return value
    return f"{int(value):,}"


def register_layers(app: Dash, store: FileStore) -> None:
    """Wire the layer view's callback; no logic here."""
    wire(app, show, store, Output("layer-cost", "children"), Input("shown", "data"))
