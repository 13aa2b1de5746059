"""The dashboard's "estimated vs measured" section: shown when the selected IR has a ZeBu trace.

The trace is `--trace` for the file `irtools serve` opens first, or else `<stem>_sim.txt` beside
the IR or in a `zebu/` folder beside its folder, inside the served directory only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from dash import Dash, Input, Output, State, dcc, html, no_update

from dashboards.data import AccessError, FileStore
from dashboards.measured import CAVEAT, load_measured, measured_timeline_figure, slot_figure
from dashboards.shared_range import range_patch, view_window, was_reset, zoomed_window
from dashboards.timeline import MAX_BARS
from dashboards.wiring import Trigger, wire
from irtools.errors import AnalysisError
from irtools.trace import Measured, discover_trace

_HIDDEN = {"display": "none"}
_SHOWN = {"display": "block", "marginTop": "10px"}


def measured_section() -> html.Div:
    """Hidden until a file with a trace is selected."""
    return html.Div(
        [
            html.H3(
                "Estimated vs measured (ZeBu trace, core 0)", style={"fontSize": "17px", "margin": "6px 0"}
            ),
            html.Div(CAVEAT, style={"fontSize": "13px", "color": "#444", "maxWidth": "1100px"}),
            html.Pre(id="measured-summary", style={"fontSize": "12px", "whiteSpace": "pre-wrap"}),
            dcc.Loading(dcc.Graph(id="measured-timeline", config={"displaylogo": False}), type="dot"),
            dcc.Graph(id="measured-slots", config={"displaylogo": False}),
        ],
        id="measured-section",
        style=_HIDDEN,
    )


class MeasuredStore:
    """IR key -> its trace joined, cached per (entry, trace file version); a few kept."""

    def __init__(self, store: FileStore, explicit: dict[str, Path], size: int = 4) -> None:
        self.store = store
        self.explicit = explicit
        self._cache: OrderedDict[tuple[object, ...], Measured | None] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def trace_path(self, key: str) -> Path | None:
        """The ZeBu trace of a served file: the one given with --trace, else the one found beside it."""
        if key in self.explicit:
            return self.explicit[key]
        return discover_trace(self.store.resolve(key), root=self.store.root)

    def get(self, key: str | None) -> Measured | None:
        """The file's IR joined with its trace, kept while neither changes; None without a trace, for an
        upload, or when either cannot be read."""
        if not key or key.startswith("upload:"):
            return None
        try:
            trace = self.trace_path(key)
            if trace is None:
                return None
            entry = self.store.get(key)
            stat = trace.stat()
            cache_key = (key, id(entry), str(trace), stat.st_mtime_ns, stat.st_size)
            with self._lock:
                if cache_key in self._cache:
                    return self._cache[cache_key]
            measured = load_measured(entry.analysis, trace)
        except (AccessError, AnalysisError, OSError):
            return None
        with self._lock:
            self._cache[cache_key] = measured
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return measured


def show(measured_store: MeasuredStore, trigger: Trigger, key: str | None, view: Any) -> tuple[Any, ...]:
    """The lanes follow the page's one cycles range (the `view`), as the timeline and the maps do."""
    m = measured_store.get(key)
    if m is None:
        return _HIDDEN, "", {}, {}
    window = view_window(view, key)
    if trigger.only_view:
        # Bars are all in the page already: only the axis moves. Aggregated lanes are drawn again.
        lanes = range_patch(window, ("xaxis",)) if len(m.instructions) <= MAX_BARS else None
        return no_update, no_update, lanes or measured_timeline_figure(m, window), no_update
    return _SHOWN, _summary_text(m), measured_timeline_figure(m, window), slot_figure(m)


def zoom(
    measured_store: MeasuredStore,
    trigger: Trigger,
    relayout: dict[str, Any] | None,
    key: str | None,
    view: Any,
) -> Any:
    """A zoom, pan or reset of the lanes sets the page's cycles range."""
    if key is None or measured_store.get(key) is None:
        return no_update
    window = zoomed_window(relayout)
    if window is not None:
        new: dict[str, Any] = {"file": key, "x": list(window)}
    elif was_reset(relayout):
        new = {"file": key, "x": None}
    else:
        return no_update  # Plotly's autosize after drawing
    return new if new != view else no_update


def register_measured(app: Dash, store: FileStore, explicit: dict[str, Path]) -> MeasuredStore:
    """Wire the measured section's callbacks to a MeasuredStore over `store`; no logic here."""
    measured_store = MeasuredStore(store, explicit)
    wire(
        app,
        show,
        measured_store,
        Output("measured-section", "style"),
        Output("measured-summary", "children"),
        Output("measured-timeline", "figure"),
        Output("measured-slots", "figure"),
        Input("shown", "data"),
        Input("view", "data"),
    )
    wire(
        app,
        zoom,
        measured_store,
        Output("view", "data", allow_duplicate=True),
        Input("measured-timeline", "relayoutData"),
        State("shown", "data"),
        State("view", "data"),
        prevent_initial_call=True,
    )
    return measured_store


def _summary_text(m: Measured) -> str:
    """The run summary, then the trace's errors themselves (a trace of another IR says so here)."""
    errors = [f for f in m.findings if f.severity.value == "error"][:3]
    lines = [
        f"  {f.code} (line {f.line}): {f.message}" if f.line else f"  {f.code}: {f.message}" for f in errors
    ]
    return m.summary().render() + "".join(line + "\n" for line in lines)
