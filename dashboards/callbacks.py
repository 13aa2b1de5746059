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
from dash import ALL, Dash, Input, Output, State, html, no_update
from flask import abort

from dashboards.data import AccessError, FileStore, filter_findings
from dashboards.figures import NO_IR, Focus, empty_figure
from dashboards.layout import (
    COMPACT_FROM,
    FINDINGS_PER_PAGE,
    arrow_options,
    findings_table,
    page_note,
    summary_header,
)
from dashboards.noc_choice import NocRuns, split_key, with_bandwidth
from dashboards.shared_range import range_patch as _range_patch
from dashboards.shared_range import view_window
from dashboards.shared_range import was_reset as _reset
from dashboards.shared_range import zoomed_window as _window
from dashboards.timeline import ARROWS_BY_DEFAULT, aggregated, focus_window, plural, timeline_figure
from dashboards.views import core_maps
from dashboards.wiring import Trigger, wire
from irtools.analysis import MODELS, Analysis, AnalysisError
from irtools.analysis.core_time import core_time_split
from irtools.analysis.selection import cores_under
from irtools.analysis.summary import Summary, summarize
from irtools.analysis.tables import TABLES
from irtools.analysis.tiles import mesh_shape
from irtools.analysis.units import format_bytes
from irtools.csv_out import csv_text
from irtools.dialects import Capability

Figure = Any
SEVERITIES = ("error", "warning", "info")
WL0_SHOWN = {"flex": "2", "minWidth": "380px"}
WL0_HIDDEN = {"display": "none"}
PEAK_ROWS = 12
"""Buffers listed at an L2 peak (the largest)."""


def choose(
    store: FileStore,
    trigger: Trigger,
    selected: str | None,
    contents: str | None,
    filename: str | None,
    options: list[Any] | None,
) -> tuple[Any, ...]:
    """The file picked or uploaded becomes `current`; a refused one leaves the page as it was, saying why."""
    # The upload is emptied once read: uploading the same file again is a change again.
    if trigger.id == "upload":
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
            store.resolve(split_key(selected)[0])
    except AccessError as exc:
        return no_update, f"⚠ {exc}", no_update, no_update, no_update
    return selected, "", no_update, no_update, no_update


def restore(
    store: FileStore,
    trigger: Trigger,
    search: str | None,
    key: str | None,
    model: str,
    axis: str,
    view: Any,
    core: int | None,
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


def share(
    store: FileStore, trigger: Trigger, key: str | None, core: int | None, model: str, axis: str, view: Any
) -> str:
    """The URL query of what the page shows."""
    return link(key, core, model, axis, view_window(view, key))


def load(
    store: FileStore,
    trigger: Trigger,
    key: str | None,
    layers_now: list[str] | None,
    transfer_now: int | None,
    core_now: int | None,
    search: Any,
    focus_now: Any,
    model_now: str | None = None,
) -> tuple[Any, ...]:
    """A new file's layer and core pickers, arrow choices, NoC bandwidths and timing models; the filters
    and the focus reset."""
    # Write the core, the filters and the focus only when they change: every output written
    # re-runs the figures that read it (a 100 MB file's timeline took twice as long).
    reset_layers: Any = [] if layers_now else no_update
    reset_transfer = None if transfer_now is not None else no_update
    reset_focus = (None, "") if focus_now else (no_update, no_update)
    e = store.find(key)
    if e is None:
        return (
            [],
            reset_layers,
            [],
            None,
            reset_transfer,
            no_update,
            *reset_focus,
            [],
            None,
            no_update,
            no_update,
        )
    a = e.analysis
    core = first_core(a, key, parse_link(search))
    runs = store.noc_runs(key)
    bandwidth = a.noc_model.bandwidth if a.noc_model else None
    return (
        a.layers["layer_name"].tolist(),
        reset_layers,
        [{"label": a.core_label(c), "value": c} for c in a.index.cores],
        core if core != core_now else no_update,
        reset_transfer,
        arrow_options(len(a.core_transfers)),
        *reset_focus,
        [{"label": f"{bw}", "value": bw} for bw in runs.bandwidths],
        bandwidth,
        [{"label": m, "value": m} for m in a.models],
        "dependency" if model_now not in a.models else no_update,  # no noc model without a bandwidth
    )


def choose_noc(store: FileStore, trigger: Trigger, bandwidth: int | None, key: str | None) -> Any:
    """Another of the file's NoC bandwidths picked: the file is timed again at it (a new key, its own cache)."""
    if not key or bandwidth is None:
        return no_update
    default = store.noc_runs(key).default
    new = with_bandwidth(key, None if bandwidth == default else int(bandwidth))
    return new if new != key else no_update


def first_core(analysis: Analysis, key: str | None, want: dict[str, Any]) -> int | None:
    """The core a file opens on: the link's, if it names one of this file's cores, else the first."""
    cores = list(analysis.index.cores)
    if want.get("file") == key and want.get("core") in cores:
        return int(want["core"])
    return cores[0] if cores else None


def opening_note(store: FileStore, key: str | None) -> str:
    """What the page says while its first file loads: `reading x.json (69.5 MB)…`; "" when it is ready."""
    if not key or store.ready(key):
        return ""
    size = store.size(key)
    return f"Loading: reading {key}" + (f" ({size / 1e6:,.1f} MB)" if size else "") + "…"


def progress(
    store: FileStore, trigger: Trigger, _ticks: int, key: str | None, shown: str | None
) -> tuple[str, bool, Any]:
    """What loading the file does now and for how long; once it is ready the poll stops and the
    file becomes `shown`, which every view draws from (none of them waits for a load)."""
    if not key:
        return "", True, None if shown else no_update
    if store.ready(key):
        return "", True, key if key != shown else no_update
    store.start(key)
    now = store.loading(key)
    # The views keep the file they show until the new one is ready: say which, lest it be taken for the new.
    still = f"; the views still show {shown}" if shown and shown != key else ""
    if now is None:
        return opening_note(store, key) + still, False, no_update  # the load's first stage has not begun
    what, seconds = now
    return f"Loading {key}: {what}, {seconds:.0f} s so far{still}", False, no_update


def header(
    store: FileStore, trigger: Trigger, key: str | None, model: str, requested: str | None = None
) -> Any:
    """The file in one line, the makespans, the balance and a card (or cell) per core; nothing while
    the first file asked for loads (the loading note says what it does)."""
    if not key:
        return "" if requested else "Pick an IR file or upload one."
    try:
        e = store.get(key)
    except (AccessError, AnalysisError, OSError) as exc:
        return f"⚠ {exc}"
    return header_view(e.analysis, model, store.noc_runs(key))


def noc_text(a: Analysis, runs: NocRuns) -> str:
    """`NoC 32 B/cycle per link (manifest.csv; runs at 8, 32, 128)`, or that none is known."""
    if a.noc_model is None:
        return "no NoC bandwidth (--noc-bw or manifest.csv)"
    others = f"; runs at {', '.join(map(str, runs.bandwidths))}" if len(runs.bandwidths) > 1 else ""
    return f"NoC {a.noc_model.bandwidth} B/cycle per link ({runs.source or 'chosen'}{others})"


def header_view(a: Analysis, model: str, runs: NocRuns | None = None) -> Any:
    """The header of `a` under `model` (pure: the summary and the cores table decide it)."""
    s = summarize(a, links=False)  # the header names no link; the mesh section routes the traffic
    cards = core_cards(a, s, model)
    size = format_bytes(s.buffersize) if s.buffersize else "size unknown"
    first = f"{s.path}: {plural(s.cores, 'core')}, {plural(s.workloads, 'workload')}, L2 {size}"
    first += "; " + noc_text(a, runs or NocRuns())
    b = s.balance
    note = b.text(a.core_label(b.busiest)) if b is not None and b.cores > 1 else ""
    columns = a.index.ir.xlen if all(c["position"] for c in cards) else None
    # On a chip the mesh section shows every core where it sits: a second small grid of them says less.
    strip = len(cards) < COMPACT_FROM or mesh_shape(a.index) is None
    return summary_header(
        first,
        s.makespan,
        s.unscheduled,
        model,
        cards if strip else [],
        b.bottleneck if b else None,
        note,
        columns,
    )


def core_cards(a: Analysis, s: Summary, model: str) -> list[dict[str, Any]]:
    """Per core under `model`: label, busy share and cycles, the shares of it computing and stalled on the
    NoC (irtools.analysis.core_time), mesh position and peak L2 (text)."""
    cores = cores_under(a.cores, model)
    split = core_time_split(a.timeline, model, [int(c) for c in cores["core_id"]]).set_index("core_id")
    return [
        {
            "core_id": int(c),
            "label": a.core_label(int(c)),
            "utilization": float(u),
            "busy": int(b),
            "compute_share": float(split.at[int(c), "compute_share"]),
            "noc_stall_share": float(split.at[int(c), "noc_stall_share"]),
            "position": a.index.core_position(int(c)),
            "peak_l2": _peak(s.peak_l2.get(int(c)), s.buffersize),
        }
        for c, u, b in zip(cores["core_id"], cores["utilization"], cores["busy"], strict=True)
    ]


def load_findings(store: FileStore, trigger: Trigger, key: str | None) -> tuple[Any, ...]:
    """The findings' counts and the filters' choices."""
    # Checking a large file takes a while; the figures do not wait for it.
    e = store.find(key)
    if e is None:
        return "", [], [], []
    e.after_first_view()
    return findings_choices(e.findings)


def findings_choices(f: pd.DataFrame) -> tuple[str, list[str], list[str], list[dict[str, Any]]]:
    """`1 error, 3 warnings, 0 info`, and the severities, codes and cores to filter by."""
    counts = f["severity"].value_counts()
    found = ", ".join(
        f"{int(counts.get(s, 0)):,} {s if s == 'info' or counts.get(s, 0) == 1 else s + 's'}"
        for s in SEVERITIES
    )
    severities = [s for s in SEVERITIES if s in set(f["severity"])]
    codes = sorted(set(f["code"]))
    cores = [{"label": f"core {int(c)}", "value": int(c)} for c in sorted(set(f["core_id"].dropna()))]
    return found, severities, codes, cores


def findings(
    store: FileStore,
    trigger: Trigger,
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
    e = store.find(key)
    if e is None:
        return findings_table([], 0), 0, ""
    e.after_first_view()
    shown = filter_findings(e.findings, severities, codes, cores)
    pages = max(1, math.ceil(len(shown) / FINDINGS_PER_PAGE))
    page = next_page(page or 0, pages, trigger.id)
    rows = shown.iloc[page * FINDINGS_PER_PAGE : (page + 1) * FINDINGS_PER_PAGE].to_dict("records")
    selected = (focus or {}).get("finding")
    return findings_table(rows, len(shown), selected), page, page_note(page, pages, len(shown))


def next_page(page: int, pages: int, trigger: Any) -> int:
    """The findings page after `trigger`: prev/next step, a focus keeps it, anything else starts at the top."""
    if trigger == "findings-prev":
        page -= 1
    elif trigger == "findings-next":
        page += 1
    elif trigger != "focus":
        page = 0  # a new file or filter starts at the top
    return min(max(page, 0), pages - 1)


def focus(
    store: FileStore,
    trigger: Trigger,
    _: list[int],
    transfer: int | None,
    click: dict[str, Any] | None,
    key: str | None,
    model: str,
) -> tuple[Any, ...]:
    """A transfer picked, a timeline bar clicked or a finding clicked: the focus, its core, a note, the view."""
    e = store.find(key)
    if e is None:
        return None, no_update, "", no_update
    if trigger.id == "transfer":
        return focus_on_transfer(e.analysis, transfer)
    if trigger.id == "timeline":
        picked = _clicked_workload(click)
        if picked is None:
            return no_update, no_update, no_update, no_update
        c, p, w = picked
        data = {"workloads": [(c, p)], "transfer": None, "core": c, "position": p}
        return data, c, f"selected core {c}, workload {w} (position {p})", no_update
    if not isinstance(trigger.id, dict) or not trigger.value:
        return no_update, no_update, no_update, no_update  # the table was redrawn, nothing was clicked
    return focus_on_finding(e.analysis, e.findings, int(trigger.id["index"]), key, model)


def focus_on_transfer(a: Analysis, transfer: int | None) -> tuple[Any, ...]:
    """The focus on a transfer's producers and readers, on the core of the first of them."""
    if transfer is None:
        return None, no_update, "", no_update
    producers, readers = a.transfer_users(int(transfer))
    where = producers[0] if producers else (readers[0] if readers else None)
    note = f"transfer {transfer}: produced by {_names(producers)}; read by {_names(readers)}"
    data = {
        "workloads": producers + readers,
        "transfer": int(transfer),
        "core": where[0] if where else None,
        "position": None,
    }
    return data, where[0] if where else no_update, note, no_update


def focus_on_finding(
    a: Analysis, found: pd.DataFrame, index: int, key: str | None, model: str
) -> tuple[Any, ...]:
    """The focus on finding `index`: its workload, its core, and the view zoomed to the workload."""
    finding = found.iloc[index]
    wid, tid = finding["workload_id"], finding["transfer_id"]
    if pd.isna(finding["core_id"]):  # the finding is not about one workload
        note = f"{finding['code']}: not tied to one workload ({finding['pointer']})"
        return {"finding": index}, no_update, note, no_update
    core = int(finding["core_id"])
    position = None if pd.isna(wid) else a.position_of(core, int(wid))
    data = {
        "workloads": [(core, position)] if position is not None else [],
        "transfer": None if pd.isna(tid) else int(tid),
        "core": core,
        "position": position,
        "finding": index,
    }
    note = f"{finding['code']} on core {core}" + (f", workload {int(wid)}" if position is not None else "")
    window = focus_window(a.timeline, model, core, position) if position is not None else None
    return data, core, note, {"file": key, "x": list(window)} if window else no_update


def zoom(
    store: FileStore,
    trigger: Trigger,
    timeline: Any,
    l2: Any,
    wl0: Any,
    key: str | None,
    axis: str,
    view: Any,
) -> Any:
    """A zoom, pan or reset of the timeline, or of a map on the cycles axis, sets the view."""
    if key is None or trigger.id is None or (trigger.id != "timeline" and axis != "cycles"):
        return no_update
    relayout = {"timeline": timeline, "l2-map": l2, "wl0-map": wl0}.get(trigger.id)
    new = view_after(relayout, key)
    return no_update if new is None or new == view else new


def view_after(relayout: Any, key: str) -> dict[str, Any] | None:
    """The view a Plotly relayout asks for, or None (autosize after drawing, a zoom of the address axis)."""
    window = _window(relayout)
    if window is not None:
        return {"file": key, "x": list(window)}
    if _reset(relayout):
        return {"file": key, "x": None}
    return None


def timeline(
    store: FileStore,
    trigger: Trigger,
    key: str | None,
    model: str,
    arrows: str,
    layers: list[str],
    focus: dict[str, Any] | None,
    view: Any,
) -> Figure:
    """The timeline of the file under `model`, for the view's range."""
    e = store.find(key)
    if e is None:
        return empty_figure(NO_IR)
    a = e.analysis
    window = view_window(view, key)
    # All bars are in the page already: a new range only moves the axis. An aggregated
    # timeline is drawn again for the range (bars when few are in it).
    if trigger.only_view and not aggregated(a.timeline, model):
        return _range_patch(window, ("xaxis",))
    focused = _focus(focus)
    figure = e.figure(
        ("timeline", model, arrows, tuple(layers or ()), focused, window),
        lambda: timeline_view(a, model, arrows, layers, focused, window),
    )
    e.sent("timeline", model)  # with the maps sent, the check and the mesh may start
    return figure


def timeline_view(
    a: Analysis,
    model: str,
    arrows: str,
    layers: list[str] | None,
    focus: Focus | None,
    window: tuple[float, float] | None,
) -> Figure:
    """The timeline figure: bars (or the aggregate) and the transfer arrows the `arrows` choice asks for."""
    # Thousands of arrows cover the bars and slow every zoom: "auto" draws all only up to
    # ARROWS_BY_DEFAULT; the arrows of a selected workload or layer are drawn in any case.
    every = arrows == "all" or (arrows == "auto" and len(a.core_transfers) <= ARROWS_BY_DEFAULT)
    edges = a.core_transfers if every or layers or focus else None
    return timeline_figure(
        a.timeline,
        model,
        core_transfers=edges,
        layers=layers or None,
        focus=focus,
        window=window,
        wait_cycles=a.wait_cycles,
        zoom_to_focus=False,  # the focus callback sets the view
    )


def occupancy(
    store: FileStore,
    trigger: Trigger,
    key: str | None,
    core: int | None,
    focus: dict[str, Any] | None,
    model: str,
    axis: str,
    view: Any,
) -> tuple[Figure, Figure, Any, str]:
    """The L2 and WL0 maps of the picked core, for the view's range on the cycles axis, the WL0
    panel's style (hidden for a dialect without WL0) and `model` (the `maps-sent` store)."""
    e = store.find(key)
    if e is not None and (core is None or not e.analysis.index.cores):
        e.sent("maps", model)  # no core, no maps: what follows them need not wait
    if e is None or core is None:
        blank = empty_figure(NO_IR)
        return blank, blank, WL0_SHOWN, model
    cycles = axis == "cycles"
    window = view_window(view, key)
    has_wl0 = e.analysis.index.has(Capability.WL0)
    if trigger.only_view:
        if not cycles:
            return no_update, no_update, no_update, model  # positions do not follow the cycles range
        if not e.analysis.index.has(Capability.L2_ADDRESSES):  # one panel (the blocks held), no WL0 map
            return _range_patch(window, ("xaxis",)), no_update, no_update, model
        both = ("xaxis", "xaxis2")
        return (
            _range_patch(window, both),
            _range_patch(window, both) if has_wl0 else no_update,
            no_update,
            model,
        )
    l2, wl0 = core_maps(e.analysis, core, _focus(focus), model=model, cycles=cycles, window=window)
    e.sent("maps", model)
    # A dialect without WL0 gets no WL0 panel: the L2 map takes the row.
    return l2, wl0 if wl0 is not None else {}, WL0_SHOWN if wl0 is not None else WL0_HIDDEN, model


def peak_buffers(
    store: FileStore, trigger: Trigger, key: str | None, core: int | None, model: str, view: Any
) -> Any:
    """Which buffers are live at the picked core's L2 peak in the range on screen (XProf's memory viewer)."""
    e = store.find(key)
    if e is None or core is None:
        return ""
    return peak_table(e.analysis, core, model, view_window(view, key))


def peak_table(a: Analysis, core: int, model: str, window: tuple[float, float] | None) -> Any:
    """`At the L2 peak of core 1 (0,0) in ...: 1,014 KiB in 9 buffers` and the buffers, largest first."""
    peak = a.live_at_peak(core, model, window)
    if peak is None:
        return ""
    scope = "the whole schedule" if window is None else f"cycles {window[0]:,.0f}-{window[1]:,.0f}"
    head = (
        f"Live at the L2 peak of {a.core_label(core)} in {scope}: {format_bytes(peak.held_bytes)} in "
        f"{plural(len(peak.buffers), 'buffer')}, before workload {peak.workload_id} ({peak.layer_name}, "
        f"position {peak.position})"
    )
    cell = {"border": "1px solid #ddd", "padding": "1px 6px", "fontSize": "12px"}
    rows = [
        html.Tr(
            [
                html.Td(r.type, style=cell),
                html.Td(r.layer_name, style=cell),
                html.Td(format_bytes(r.bytes), style=cell),
            ]
        )
        for r in peak.buffers.head(PEAK_ROWS).itertuples()
    ]
    more = len(peak.buffers) - PEAK_ROWS
    return html.Div(
        [
            html.Div(head, id="l2-peak-head", style={"fontSize": "13px", "fontWeight": 600}),
            html.Table(
                [
                    html.Thead(html.Tr([html.Th(n, style=cell) for n in ("kind", "layer", "size")])),
                    html.Tbody(rows),
                ],
                style={"borderCollapse": "collapse"},
            ),
            *([html.Div(f"and {more} smaller", style={"fontSize": "12px"})] if more > 0 else []),
        ]
    )


def download(store: FileStore, trigger: Trigger, _: int, name: str, key: str | None) -> Any:
    """The table `name` of the file as CSV, safe to open in a spreadsheet."""
    if name is not None and (not isinstance(name, str) or name not in TABLES):
        abort(400, "no such table")  # a crafted request: a client error, not a traceback in the log
    e = store.find(key)
    if e is None or not name:
        return no_update
    # Downloads are opened in spreadsheets: no cell may run as a formula there.
    text = csv_text(e.analysis.table(name), excel_safe=True)
    return {"content": text, "filename": f"{name}.csv", "type": "text/csv", "base64": False}


def register(app: Dash, store: FileStore) -> None:
    """Wire the callbacks above to the page's components; no logic here."""
    wire(
        app,
        choose,
        store,
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
    wire(
        app,
        restore,
        store,
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
    wire(
        app,
        share,
        store,
        Output("url-write", "search"),
        Input("current", "data"),
        Input("core", "value"),
        Input("model", "value"),
        Input("map-axis", "value"),
        Input("view", "data"),
        prevent_initial_call=True,
    )
    wire(
        app,
        load,
        store,
        Output("layers", "options"),
        Output("layers", "value"),
        Output("core", "options"),
        Output("core", "value"),
        Output("transfer", "value"),
        Output("arrows", "options"),
        Output("focus", "data", allow_duplicate=True),
        Output("focus-note", "children", allow_duplicate=True),
        Output("noc-bw", "options"),
        Output("noc-bw", "value"),
        Output("model", "options"),
        Output("model", "value", allow_duplicate=True),
        Input("shown", "data"),
        State("layers", "value"),
        State("transfer", "value"),
        State("core", "value"),
        State("url", "search"),
        State("focus", "data"),
        State("model", "value"),
        prevent_initial_call="initial_duplicate",
    )
    wire(
        app,
        choose_noc,
        store,
        Output("current", "data", allow_duplicate=True),
        Input("noc-bw", "value"),
        State("current", "data"),
        prevent_initial_call=True,
    )
    wire(
        app,
        header,
        store,
        Output("status", "children"),
        Input("shown", "data"),
        Input("model", "value"),
        State("current", "data"),
    )
    wire(
        app,
        progress,
        store,
        Output("loading-note", "children"),
        Output("loading-poll", "disabled"),
        Output("shown", "data"),
        Input("loading-poll", "n_intervals"),
        Input("current", "data"),
        State("shown", "data"),
    )
    wire(
        app,
        load_findings,
        store,
        Output("findings-summary", "children"),
        Output("filter-severity", "options"),
        Output("filter-code", "options"),
        Output("filter-core", "options"),
        Input("shown", "data"),
    )
    wire(
        app,
        findings,
        store,
        Output("findings", "children"),
        Output("findings-page", "data"),
        Output("findings-page-note", "children"),
        Input("shown", "data"),
        Input("filter-severity", "value"),
        Input("filter-code", "value"),
        Input("filter-core", "value"),
        Input("findings-prev", "n_clicks"),
        Input("findings-next", "n_clicks"),
        Input("focus", "data"),
        State("findings-page", "data"),
    )
    wire(
        app,
        focus,
        store,
        Output("focus", "data"),
        Output("core", "value", allow_duplicate=True),
        Output("focus-note", "children"),
        Output("view", "data", allow_duplicate=True),
        Input({"type": "finding", "index": ALL}, "n_clicks"),
        Input("transfer", "value"),
        Input("timeline", "clickData"),
        State("shown", "data"),
        State("model", "value"),
        prevent_initial_call=True,
    )
    wire(
        app,
        zoom,
        store,
        Output("view", "data", allow_duplicate=True),
        Input("timeline", "relayoutData"),
        Input("l2-map", "relayoutData"),
        Input("wl0-map", "relayoutData"),
        State("shown", "data"),
        State("map-axis", "value"),
        State("view", "data"),
        prevent_initial_call=True,
    )
    wire(
        app,
        timeline,
        store,
        Output("timeline", "figure"),
        Input("shown", "data"),
        Input("model", "value"),
        Input("arrows", "value"),
        Input("layers", "value"),
        Input("focus", "data"),
        Input("view", "data"),
    )
    wire(
        app,
        occupancy,
        store,
        Output("l2-map", "figure"),
        Output("wl0-map", "figure"),
        Output("wl0-box", "style"),
        Output("maps-sent", "data"),
        Input("shown", "data"),
        Input("core", "value"),
        Input("focus", "data"),
        Input("model", "value"),
        Input("map-axis", "value"),
        Input("view", "data"),
    )
    wire(
        app,
        peak_buffers,
        store,
        Output("l2-peak", "children"),
        Input("shown", "data"),
        Input("core", "value"),
        Input("model", "value"),
        Input("view", "data"),
    )
    wire(
        app,
        download,
        store,
        Output("download", "data"),
        Input("download-button", "n_clicks"),
        State("table-name", "value"),
        State("shown", "data"),
        prevent_initial_call=True,
    )


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
