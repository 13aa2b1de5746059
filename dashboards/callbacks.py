"""Callbacks: wire controls to the FileStore and the figure builders; no analysis happens here.

One store, `view` ({"file": key, "x": [lo, hi] or None}), holds the cycles range on screen: a
zoom, pan or reset of the timeline or of a map (on its cycles axis) writes it, and every figure
is drawn for it. The URL mirrors the file, core, model, map axis and range, so a view can be
shared as a link.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import parse_qs, urlencode

import pandas as pd
from dash import ALL, Dash, Input, Output, State, ctx, no_update
from flask import abort

from dashboards.data import AccessError, FileStore, filter_findings
from dashboards.figures import Focus, empty_figure, format_bytes
from dashboards.layout import FINDINGS_PER_PAGE, arrow_options, findings_table, page_note, summary_header
from dashboards.shared_range import range_patch as _range_patch
from dashboards.shared_range import view_window as _view_window
from dashboards.shared_range import was_reset as _reset
from dashboards.shared_range import zoomed_window as _window
from dashboards.timeline import ARROWS_BY_DEFAULT, aggregated, focus_window, plural, timeline_figure
from dashboards.views import core_maps
from irtools.analysis import MODELS, AnalysisError
from irtools.analysis.summary import summarize
from irtools.analysis.tables import TABLES
from irtools.csv_out import csv_text
from irtools.dialects import Capability

Figure = Any
SEVERITIES = ("error", "warning", "info")


def register(app: Dash, store: FileStore) -> None:
    entry = store.find

    @app.callback(
        Output("current", "data"),
        Output("message", "children"),
        Output("file-select", "options"),
        Output("file-select", "value"),
        Output("upload", "contents"),
        Input("file-select", "value"),
        Input("upload", "contents"),
        State("upload", "filename"),
        State("file-select", "options"),
        prevent_initial_call=True,
    )
    def choose(
        selected: str | None, contents: str | None, filename: str | None, options: list[Any] | None
    ) -> tuple[Any, ...]:
        # The upload is emptied once read: uploading the same file again is a change again.
        if ctx.triggered_id == "upload":
            if not contents:
                return no_update, no_update, no_update, no_update, no_update
            try:
                key = store.add_upload(filename or "upload.json", contents)
            except AccessError as exc:
                return no_update, f"⚠ {exc}", no_update, no_update, None  # the current file stays
            # The picker names the upload, so it shows what the page shows.
            others = [o for o in options or [] if o.get("value") != key]
            return key, "", [*others, {"label": f"{filename} (uploaded)", "value": key}], key, None
        if not selected:
            return no_update, no_update, no_update, no_update, no_update
        try:
            if not selected.startswith("upload:"):
                store.resolve(selected)
        except AccessError as exc:
            return no_update, f"⚠ {exc}", no_update, no_update, no_update
        return selected, "", no_update, no_update, no_update

    # The browser fires no change when the same file is chosen again: empty the file input.
    app.clientside_callback(  # type: ignore[no-untyped-call]
        """function (contents) {
            const input = document.querySelector('#upload input[type=file]');
            if (input) { input.value = ''; }
            return window.dash_clientside.no_update;
        }""",
        Output("upload-reset", "data"),
        Input("upload", "contents"),
        prevent_initial_call=True,
    )

    @app.callback(
        Output("file-select", "value", allow_duplicate=True),
        Output("model", "value"),
        Output("map-axis", "value"),
        Output("view", "data", allow_duplicate=True),
        Output("core", "value", allow_duplicate=True),
        Input("url", "search"),
        State("current", "data"),
        State("model", "value"),
        State("map-axis", "value"),
        State("view", "data"),
        State("core", "value"),
        prevent_initial_call="initial_duplicate",
    )
    def restore(
        search: str | None, key: str | None, model: str, axis: str, view: Any, core: int | None
    ) -> tuple[Any, ...]:
        """A link's view: what differs from the page is set (our own URL updates change nothing)."""
        want = parse_link(search)
        file = want.get("file") or key
        new_file = file != key
        wanted_view = {"file": file, "x": want["x"]} if "x" in want else None
        return (
            file if new_file else no_update,
            want["model"] if want.get("model", model) != model else no_update,
            want["axis"] if want.get("axis", axis) != axis else no_update,
            wanted_view if wanted_view and wanted_view != view else no_update,
            # A new file's core is set when it loads (`load` reads the link too).
            want["core"] if not new_file and want.get("core", core) != core else no_update,
        )

    @app.callback(
        Output("url-write", "search"),
        Input("current", "data"),
        Input("core", "value"),
        Input("model", "value"),
        Input("map-axis", "value"),
        Input("view", "data"),
        prevent_initial_call=True,
    )
    def share(key: str | None, core: int | None, model: str, axis: str, view: Any) -> str:
        return link(key, core, model, axis, _view_window(view, key))

    @app.callback(
        Output("layers", "options"),
        Output("layers", "value"),
        Output("core", "options"),
        Output("core", "value"),
        Output("transfer", "value"),
        Output("arrows", "options"),
        Output("focus", "data", allow_duplicate=True),
        Output("focus-note", "children", allow_duplicate=True),
        Input("current", "data"),
        State("layers", "value"),
        State("transfer", "value"),
        State("core", "value"),
        State("url", "search"),
        State("focus", "data"),
        prevent_initial_call="initial_duplicate",
    )
    def load(
        key: str | None,
        layers_now: list[str] | None,
        transfer_now: int | None,
        core_now: int | None,
        search: Any,
        focus_now: Any,
    ) -> tuple[Any, ...]:
        # Write the core, the filters and the focus only when they change: every output written
        # re-runs the figures that read it (a 100 MB file's timeline took twice as long).
        reset_layers: Any = [] if layers_now else no_update
        reset_transfer = None if transfer_now is not None else no_update
        reset_focus = (None, "") if focus_now else (no_update, no_update)
        e = entry(key)
        if e is None:
            return [], reset_layers, [], None, reset_transfer, no_update, *reset_focus
        a = e.analysis
        cores = list(a.index.cores)
        want = parse_link(search)
        core = want.get("core") if want.get("file") == key and want.get("core") in cores else None
        if core is None:
            core = cores[0] if cores else None
        return (
            a.layers["layer_name"].tolist(),
            reset_layers,
            [{"label": a.core_label(c), "value": c} for c in cores],
            core if core != core_now else no_update,
            reset_transfer,
            arrow_options(len(a.core_transfers)),
            *reset_focus,
        )

    @app.callback(Output("status", "children"), Input("current", "data"), Input("model", "value"))
    def header(key: str | None, model: str) -> Any:
        if not key:
            return "Pick an IR file or upload one."
        try:
            e = store.get(key)
        except (AccessError, AnalysisError, OSError) as exc:
            return f"⚠ {exc}"
        a = e.analysis
        s = summarize(a, links=False)  # the header names no link; the mesh section routes the traffic
        cores = a.cores[a.cores["model"] == model]
        buffersize = s.buffersize
        cards = [
            {
                "core_id": int(c),
                "label": a.core_label(int(c)),
                "utilization": float(u),
                "busy": int(b),
                "position": a.index.core_position(int(c)),
                "peak_l2": _peak(s.peak_l2.get(int(c)), buffersize),
            }
            for c, u, b in zip(cores["core_id"], cores["utilization"], cores["busy"], strict=True)
        ]
        size = format_bytes(buffersize) if buffersize else "size unknown"
        first = f"{s.path}: {plural(s.cores, 'core')}, {plural(s.workloads, 'workload')}, L2 {size}"
        b = s.balance
        note = b.text(a.core_label(b.busiest)) if b is not None and b.cores > 1 else ""
        columns = a.index.ir.xlen if all(c["position"] for c in cards) else None
        return summary_header(
            first, s.makespan, s.unscheduled, model, cards, b.bottleneck if b else None, note, columns
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
        e.after_first_view()
        f = e.findings
        counts = f["severity"].value_counts()
        found = ", ".join(
            f"{int(counts.get(s, 0)):,} {s if s == 'info' or counts.get(s, 0) == 1 else s + 's'}"
            for s in SEVERITIES
        )
        severities = [s for s in SEVERITIES if s in set(f["severity"])]
        codes = sorted(set(f["code"]))
        cores = [{"label": f"core {int(c)}", "value": int(c)} for c in sorted(set(f["core_id"].dropna()))]
        return found, severities, codes, cores

    @app.callback(
        Output("findings", "children"),
        Output("findings-page", "data"),
        Output("findings-page-note", "children"),
        Input("current", "data"),
        Input("filter-severity", "value"),
        Input("filter-code", "value"),
        Input("filter-core", "value"),
        Input("findings-prev", "n_clicks"),
        Input("findings-next", "n_clicks"),
        Input("focus", "data"),
        State("findings-page", "data"),
    )
    def findings(
        key: str | None,
        severities: list[str],
        codes: list[str],
        cores: list[int],
        _prev: int,
        _next: int,
        focus: dict[str, Any] | None,
        page: int | None,
    ) -> tuple[Any, ...]:
        """One page of the filtered findings: the browser draws FINDINGS_PER_PAGE rows, never thousands."""
        e = entry(key)
        if e is None:
            return findings_table([], 0), 0, ""
        e.after_first_view()
        shown = filter_findings(e.findings, severities, codes, cores)
        pages = max(1, math.ceil(len(shown) / FINDINGS_PER_PAGE))
        page = page or 0
        trigger = ctx.triggered_id
        if trigger == "findings-prev":
            page -= 1
        elif trigger == "findings-next":
            page += 1
        elif trigger != "focus":
            page = 0  # a new file or filter starts at the top
        page = min(max(page, 0), pages - 1)
        rows = shown.iloc[page * FINDINGS_PER_PAGE : (page + 1) * FINDINGS_PER_PAGE].to_dict("records")
        selected = (focus or {}).get("finding")
        return findings_table(rows, len(shown), selected), page, page_note(page, pages, len(shown))

    @app.callback(
        Output("focus", "data"),
        Output("core", "value", allow_duplicate=True),
        Output("focus-note", "children"),
        Output("view", "data", allow_duplicate=True),
        Input({"type": "finding", "index": ALL}, "n_clicks"),
        Input("transfer", "value"),
        Input("timeline", "clickData"),
        State("current", "data"),
        State("model", "value"),
        prevent_initial_call=True,
    )
    def focus(
        _: list[int], transfer: int | None, click: dict[str, Any] | None, key: str | None, model: str
    ) -> tuple[Any, ...]:
        e = entry(key)
        if e is None:
            return None, no_update, "", no_update
        trigger = ctx.triggered_id
        if trigger == "transfer":
            if transfer is None:
                return None, no_update, "", no_update
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
            return data, where[0] if where else no_update, note, no_update
        if trigger == "timeline":
            picked = _clicked_workload(click)
            if picked is None:
                return no_update, no_update, no_update, no_update
            c, p, w = picked
            data = {"workloads": [(c, p)], "transfer": None, "core": c, "position": p}
            return data, c, f"selected core {c}, workload {w} (position {p})", no_update
        if not isinstance(trigger, dict) or not ctx.triggered[0]["value"]:
            return no_update, no_update, no_update, no_update  # the table was redrawn, nothing was clicked
        index = int(trigger["index"])
        finding = e.findings.iloc[index]
        wid, tid = finding["workload_id"], finding["transfer_id"]
        if pd.isna(finding["core_id"]):  # the finding is not about one workload
            note = f"{finding['code']}: not tied to one workload ({finding['pointer']})"
            return {"finding": index}, no_update, note, no_update
        core = int(finding["core_id"])
        position = None if pd.isna(wid) else e.analysis.position_of(core, int(wid))
        data = {
            "workloads": [(core, position)] if position is not None else [],
            "transfer": None if pd.isna(tid) else int(tid),
            "core": core,
            "position": position,
            "finding": index,
        }
        note = f"{finding['code']} on core {core}" + (
            f", workload {int(wid)}" if position is not None else ""
        )
        window = focus_window(e.analysis.timeline, model, core, position) if position is not None else None
        return data, core, note, {"file": key, "x": list(window)} if window else no_update

    @app.callback(
        Output("view", "data", allow_duplicate=True),
        Input("timeline", "relayoutData"),
        Input("l2-map", "relayoutData"),
        Input("wl0-map", "relayoutData"),
        State("current", "data"),
        State("map-axis", "value"),
        State("view", "data"),
        prevent_initial_call=True,
    )
    def zoom(timeline: Any, l2: Any, wl0: Any, key: str | None, axis: str, view: Any) -> Any:
        """A zoom, pan or reset of the timeline, or of a map on the cycles axis, sets the view."""
        trigger = ctx.triggered_id
        if key is None or trigger is None or (trigger != "timeline" and axis != "cycles"):
            return no_update
        relayout = {"timeline": timeline, "l2-map": l2, "wl0-map": wl0}[trigger]
        window = _window(relayout)
        new: dict[str, Any]
        if window is not None:
            new = {"file": key, "x": list(window)}
        elif _reset(relayout):
            new = {"file": key, "x": None}
        else:
            return no_update  # Plotly's autosize after drawing, or a zoom of the address axis
        return new if new != view else no_update

    @app.callback(
        Output("timeline", "figure"),
        Input("current", "data"),
        Input("model", "value"),
        Input("arrows", "value"),
        Input("layers", "value"),
        Input("focus", "data"),
        Input("view", "data"),
    )
    def timeline(
        key: str | None,
        model: str,
        arrows: str,
        layers: list[str],
        focus: dict[str, Any] | None,
        view: Any,
    ) -> Figure:
        e = entry(key)
        if e is None:
            return empty_figure("no IR loaded")
        a = e.analysis
        window = _view_window(view, key)
        # All bars are in the page already: a new range only moves the axis. An aggregated
        # timeline is drawn again for the range (bars when few are in it).
        if _only_view_changed() and not aggregated(a.timeline, model):
            return _range_patch(window, ("xaxis",))
        # Thousands of arrows cover the bars and slow every zoom: "auto" draws all only up to
        # ARROWS_BY_DEFAULT; the arrows of a selected workload or layer are drawn in any case.
        every = arrows == "all" or (arrows == "auto" and len(a.core_transfers) <= ARROWS_BY_DEFAULT)
        edges = a.core_transfers if every or layers or focus else None
        figure = timeline_figure(
            a.timeline,
            model,
            core_transfers=edges,
            layers=layers or None,
            focus=_focus(focus),
            window=window,
            wait_cycles=a.wait_cycles,
            zoom_to_focus=False,  # the focus callback sets the view
        )
        e.sent("timeline")  # with the maps sent, the check and the mesh may start
        return figure

    @app.callback(
        Output("l2-map", "figure"),
        Output("wl0-map", "figure"),
        Input("current", "data"),
        Input("core", "value"),
        Input("focus", "data"),
        Input("model", "value"),
        Input("map-axis", "value"),
        Input("view", "data"),
    )
    def occupancy(
        key: str | None, core: int | None, focus: dict[str, Any] | None, model: str, axis: str, view: Any
    ) -> tuple[Figure, Figure]:
        e = entry(key)
        if e is not None and not e.analysis.index.cores:
            e.sent("maps")  # no core, no maps: the findings (all there is to see) need not wait
        if e is None or core is None:
            blank = empty_figure("no IR loaded")
            return blank, blank
        cycles = axis == "cycles"
        window = _view_window(view, key)
        if _only_view_changed():
            if not cycles:
                return no_update, no_update  # positions do not follow the cycles range
            if not e.analysis.index.has(Capability.L2_ADDRESSES):  # one panel (the blocks held), no WL0 map
                return _range_patch(window, ("xaxis",)), no_update
            return _range_patch(window, ("xaxis", "xaxis2")), _range_patch(window, ("xaxis", "xaxis2"))
        maps = core_maps(e.analysis, core, _focus(focus), model=model, cycles=cycles, window=window)
        e.sent("maps")
        return maps

    @app.callback(
        Output("download", "data"),
        Input("download-button", "n_clicks"),
        State("table-name", "value"),
        State("current", "data"),
        prevent_initial_call=True,
    )
    def download(_: int, name: str, key: str | None) -> Any:
        if name is not None and (not isinstance(name, str) or name not in TABLES):
            abort(400, "no such table")  # a crafted request: a client error, not a traceback in the log
        e = entry(key)
        if e is None or not name:
            return no_update
        # Downloads are opened in spreadsheets: no cell may run as a formula there.
        text = csv_text(e.analysis.table(name), excel_safe=True)
        return {"content": text, "filename": f"{name}.csv", "type": "text/csv", "base64": False}


def link(key: str | None, core: int | None, model: str, axis: str, window: tuple[float, float] | None) -> str:
    """The URL query naming a view: file, core, model, map axis (when not cycles), cycles range."""
    query: dict[str, Any] = {}
    if key:
        query["file"] = key
    if core is not None:
        query["core"] = core
    query["model"] = model
    if axis != "cycles":
        query["axis"] = axis
    if window is not None:
        query["x0"], query["x1"] = round(window[0]), round(window[1])
    return "?" + urlencode(query)


def parse_link(search: str | None) -> dict[str, Any]:
    """What a URL query made by `link` asks for; unknown or malformed parts are left out."""
    values = {k: v[-1] for k, v in parse_qs((search or "").lstrip("?")).items()}
    want: dict[str, Any] = {}
    if values.get("file"):
        want["file"] = values["file"]
    if values.get("core", "").isdigit():
        want["core"] = int(values["core"])
    if values.get("model") in (*MODELS, "noc"):
        want["model"] = values["model"]
    if values.get("axis") in ("cycles", "position"):
        want["axis"] = values["axis"]
    try:
        lo, hi = float(values["x0"]), float(values["x1"])
    except (KeyError, ValueError):
        pass
    else:
        if math.isfinite(lo) and math.isfinite(hi) and lo < hi:
            want["x"] = [lo, hi]
    return want


def _only_view_changed() -> bool:
    return [t["prop_id"] for t in ctx.triggered] == ["view.data"]


def _clicked_workload(click: dict[str, Any] | None) -> tuple[int, int, int] | None:
    """(core_id, position, workload_id) of the timeline bar clicked, from Plotly's clickData."""
    points = (click or {}).get("points") or []
    if not points:
        return None
    point = points[0]
    custom = point.get("customdata")
    label = str(point.get("y", ""))
    if not isinstance(custom, list) or len(custom) < 3 or not label.startswith("core "):
        return None  # not a workload bar (the aggregated heatmap, an arrow)
    try:
        return int(label.removeprefix("core ")), int(custom[2]), int(custom[1])
    except (TypeError, ValueError):
        return None


def _peak(peak: int | None, buffersize: int | None) -> str:
    if peak is None:
        return "n/a"
    return format_bytes(peak) + (f" ({peak / buffersize:.0%})" if buffersize else "")


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
