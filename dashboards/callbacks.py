"""Callbacks: wire controls to the FileStore and the figure builders; no analysis happens here."""

from __future__ import annotations

from typing import Any

import pandas as pd
from dash import ALL, Dash, Input, Output, State, ctx, no_update
from dash.dcc.express import send_data_frame

from dashboards.data import AccessError, Entry, FileStore, filter_findings
from dashboards.figures import Focus, empty_figure
from dashboards.layout import findings_table
from dashboards.timeline import aggregated, timeline_figure
from dashboards.views import core_maps
from irtools.analysis import AnalysisError
from irtools.analysis.summary import summarize

Figure = Any


def register(app: Dash, store: FileStore) -> None:
    def entry(key: str | None) -> Entry | None:
        if not key:
            return None
        try:
            return store.get(key)
        except (AccessError, AnalysisError, OSError):
            return None

    @app.callback(
        Output("current", "data"),
        Output("status", "children", allow_duplicate=True),
        Input("file-select", "value"),
        Input("upload", "contents"),
        State("upload", "filename"),
        prevent_initial_call=True,
    )
    def choose(selected: str | None, contents: str | None, filename: str | None) -> tuple[Any, Any]:
        try:
            if ctx.triggered_id == "upload" and contents:
                return store.add_upload(filename or "upload.json", contents), no_update
            if selected:
                store.resolve(selected)
                return selected, no_update
        except AccessError as exc:
            return no_update, f"⚠ {exc}"  # keep showing the current file; load would overwrite the message
        return no_update, no_update

    @app.callback(
        Output("status", "children"),
        Output("layers", "options"),
        Output("layers", "value"),
        Output("core", "options"),
        Output("core", "value"),
        Output("transfer", "value"),
        Input("current", "data"),
        State("layers", "value"),
        State("transfer", "value"),
    )
    def load(key: str | None, layers_now: list[str] | None, transfer_now: int | None) -> tuple[Any, ...]:
        # Reset the filters only when set: every output written re-runs the figures that read it.
        reset_layers: Any = [] if layers_now else no_update
        reset_transfer = None if transfer_now is not None else no_update
        if not key:
            return "Pick an IR file or upload one.", [], reset_layers, [], None, reset_transfer
        try:
            e = store.get(key)
        except (AccessError, AnalysisError, OSError) as exc:
            return f"⚠ {exc}", [], reset_layers, [], None, reset_transfer
        layers = e.analysis.layers["layer_name"].tolist()
        cores = [{"label": e.analysis.core_label(c), "value": c} for c in e.analysis.index.cores]
        first_core = cores[0]["value"] if cores else None
        return (
            summarize(e.analysis).render().rstrip(),
            layers,
            reset_layers,
            cores,
            first_core,
            reset_transfer,
        )

    @app.callback(
        Output("findings-summary", "children"),
        Output("filter-severity", "options"),
        Output("filter-code", "options"),
        Output("filter-core", "options"),
        Input("current", "data"),
    )
    def load_findings(key: str | None) -> tuple[Any, ...]:
        # Checking a large file takes a while; the figures do not wait for it.
        e = entry(key)
        if e is None:
            return "", [], [], []
        f = e.findings
        counts = f["severity"].value_counts()
        found = ", ".join(f"{counts.get(s, 0)} {s}s" for s in ("error", "warning", "info"))
        severities = [s for s in ("error", "warning", "info") if s in set(f["severity"])]
        codes = sorted(set(f["code"]))
        cores = [{"label": f"core {int(c)}", "value": int(c)} for c in sorted(set(f["core_id"].dropna()))]
        return found, severities, codes, cores

    @app.callback(
        Output("findings", "children"),
        Input("current", "data"),
        Input("filter-severity", "value"),
        Input("filter-code", "value"),
        Input("filter-core", "value"),
    )
    def findings(key: str | None, severities: list[str], codes: list[str], cores: list[int]) -> Any:
        e = entry(key)
        if e is None:
            return findings_table([], 0)
        shown = filter_findings(e.findings, severities, codes, cores)
        return findings_table(shown.to_dict("records"), len(shown))

    @app.callback(
        Output("focus", "data"),
        Output("core", "value", allow_duplicate=True),
        Output("focus-note", "children"),
        Input({"type": "finding", "index": ALL}, "n_clicks"),
        Input("transfer", "value"),
        State("current", "data"),
        prevent_initial_call=True,
    )
    def focus(_: list[int], transfer: int | None, key: str | None) -> tuple[Any, Any, Any]:
        e = entry(key)
        if e is None:
            return None, no_update, ""
        if ctx.triggered_id == "transfer":
            if transfer is None:
                return None, no_update, ""
            producers, readers = e.analysis.transfer_users(int(transfer))
            users = producers + readers
            where = producers[0] if producers else (readers[0] if readers else None)
            note = f"transfer {transfer}: produced by {_names(producers)}; read by {_names(readers)}"
            data = {
                "workloads": users,
                "transfer": int(transfer),
                "core": where[0] if where else None,
                "position": None,
            }
            return data, where[0] if where else no_update, note
        clicked = ctx.triggered_id
        if not isinstance(clicked, dict) or not ctx.triggered[0]["value"]:
            return no_update, no_update, no_update  # the table was redrawn, nothing was clicked
        finding = e.findings.iloc[int(clicked["index"])]
        core, wid, tid = finding["core_id"], finding["workload_id"], finding["transfer_id"]
        if pd.isna(core):  # the finding is not about one workload
            return None, no_update, f"{finding['code']}: not tied to one workload ({finding['pointer']})"
        core = int(core)
        position = None if pd.isna(wid) else e.analysis.position_of(core, int(wid))
        data = {
            "workloads": [(core, position)] if position is not None else [],
            "transfer": None if pd.isna(tid) else int(tid),
            "core": core,
            "position": position,
        }
        note = f"{finding['code']} on core {core}" + (
            f", workload {int(wid)}" if position is not None else ""
        )
        return data, core, note

    @app.callback(
        Output("timeline", "figure"),
        Input("current", "data"),
        Input("model", "value"),
        Input("arrows", "value"),
        Input("layers", "value"),
        Input("focus", "data"),
        State("timeline", "relayoutData"),
    )
    def timeline(
        key: str | None,
        model: str,
        arrows: list[str],
        layers: list[str],
        focus: dict[str, Any] | None,
        relayout: dict[str, Any] | None,
    ) -> Figure:
        # A new file or timing model shows it all; a focus sets its own window; the rest keep the zoom.
        keep_zoom = ctx.triggered_id in ("arrows", "layers")
        return _timeline(entry(key), model, arrows, layers, focus, _window(relayout) if keep_zoom else None)

    # Its own callback: as an Input of the one above, the relayout Plotly sends after drawing a
    # placeholder superseded the slow first build of a large file, which was then dropped.
    @app.callback(
        Output("timeline", "figure", allow_duplicate=True),
        Input("timeline", "relayoutData"),
        State("current", "data"),
        State("model", "value"),
        State("arrows", "value"),
        State("layers", "value"),
        State("focus", "data"),
        prevent_initial_call=True,
    )
    def zoom(
        relayout: dict[str, Any] | None,
        key: str | None,
        model: str,
        arrows: list[str],
        layers: list[str],
        focus: dict[str, Any] | None,
    ) -> Figure:
        """Only an aggregated timeline changes with the zoom: bars are all in the page already."""
        e = entry(key)
        window = _window(relayout)
        reset = bool((relayout or {}).get("xaxis.autorange"))
        if e is None or (window is None and not reset) or not aggregated(e.analysis.timeline, model):
            return no_update
        return _timeline(e, model, arrows, layers, focus, window)

    def _timeline(
        e: Entry | None,
        model: str,
        arrows: list[str],
        layers: list[str],
        focus: dict[str, Any] | None,
        window: tuple[float, float] | None,
    ) -> Figure:
        if e is None:
            return empty_figure("no IR loaded")
        a = e.analysis
        edges = a.core_transfers if "arrows" in (arrows or []) else None
        return timeline_figure(
            a.timeline, model, core_transfers=edges, layers=layers or None, focus=_focus(focus), window=window
        )

    @app.callback(
        Output("l2-map", "figure"),
        Output("wl0-map", "figure"),
        Input("current", "data"),
        Input("core", "value"),
        Input("focus", "data"),
    )
    def occupancy(key: str | None, core: int | None, focus: dict[str, Any] | None) -> tuple[Figure, Figure]:
        e = entry(key)
        if e is None or core is None:
            blank = empty_figure("no IR loaded")
            return blank, blank
        return core_maps(e.analysis, core, _focus(focus))

    @app.callback(
        Output("download", "data"),
        Input("download-button", "n_clicks"),
        State("table-name", "value"),
        State("current", "data"),
        prevent_initial_call=True,
    )
    def download(_: int, name: str, key: str | None) -> Any:
        e = entry(key)
        if e is None or not name:
            return no_update
        table = e.analysis.table(name)
        return send_data_frame(table.to_csv, f"{name}.csv", index=False)  # type: ignore[no-untyped-call]


def _window(relayout: dict[str, Any] | None) -> tuple[float, float] | None:
    """The x range a zoom or pan of the timeline set (Plotly's relayoutData), or None."""
    data = relayout or {}
    bounds = data.get("xaxis.range") or [data.get("xaxis.range[0]"), data.get("xaxis.range[1]")]
    try:
        lo, hi = float(bounds[0]), float(bounds[1])
    except (TypeError, ValueError, IndexError):
        return None
    return (lo, hi) if lo < hi else None


def _focus(data: dict[str, Any] | None) -> Focus | None:
    if not data:
        return None
    return Focus(
        workloads=frozenset((int(c), int(p)) for c, p in data.get("workloads") or [] if p is not None),
        transfer_id=data.get("transfer"),
        core_id=data.get("core"),
        position=data.get("position"),
    )


def _names(places: list[tuple[int, int]]) -> str:
    if not places:
        return "nothing"
    shown = ", ".join(f"core {c} #{p}" for c, p in places[:6])
    return shown + (f" and {len(places) - 6} more" if len(places) > 6 else "")
