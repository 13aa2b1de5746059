"""The Dash app over a directory of IR files: `irtools serve DIR` or `create_app(DIR).run()`."""

from __future__ import annotations

from pathlib import Path

from dash import Dash

from dashboards.callbacks import opening_note, register
from dashboards.counters_view import register_counters
from dashboards.data import FileStore
from dashboards.layer_view import register_layers
from dashboards.layout import build_layout
from dashboards.measured_view import register_measured
from dashboards.mesh_view import register_mesh
from dashboards.sweep_page import mount_sweep_page
from dashboards.upload_guard import register_upload_guard
from dashboards.upload_store import limit_uploads
from irtools.analysis import MODELS
from irtools.analysis.noc import NocModel
from irtools.options import RunOptions

DEFAULT_MAX_UPLOAD_MB = 200


def create_app(
    path: str | Path = ".",
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_MB * 10**6,
    open_file: str | None = None,
    max_file_bytes: int | None = None,
    wl0_size: int | None = None,
    trace: str | Path | None = None,
    noc: NocModel | None = None,
    l2_size: int | None = None,
    max_upload_store_bytes: int | None = None,
    options: RunOptions | None = None,
) -> Dash:
    """An app serving IR files under `path` (a directory, or a file to open in its directory).

    `open_file` names the file to show first, relative to the directory; files larger than
    `max_file_bytes` are refused with a message; `wl0_size` gives the WL0 maps a capacity (and
    turns on GIR402), `l2_size` is the L2 size of files that record none (the maps' buffer end, GIR301). `trace` is the ZeBu trace of the file shown first (others are found by name).
    Uploads are kept up to `max_upload_store_bytes` in all (default: a sixteenth of the memory).
    `noc` adds the noc timing model (the scheduler's latency) to every file's model switch.
    `options` (what `irtools serve` passes) is the run's whole options and replaces `max_file_bytes`,
    `wl0_size`, `l2_size` and `noc`.
    """
    target = Path(path)
    root = target.parent if target.is_file() else target
    store = FileStore(
        root,
        max_upload_bytes,
        max_file_bytes=max_file_bytes,
        wl0_size=wl0_size,
        l2_size=l2_size,
        noc=noc,
        max_upload_store_bytes=max_upload_store_bytes,
        options=options,
    )
    noc = store.noc
    selected = open_file
    if target.is_file():
        selected = target.resolve().relative_to(store.root).as_posix()
    app = Dash(__name__, title="irtools", update_title="")  # "": keep the title while updating
    # Requests larger than an upload at the limit (base64 adds a third) are refused by the server.
    app.server.config["MAX_CONTENT_LENGTH"] = max_upload_bytes * 4 // 3 + (1 << 20)
    limit_uploads(app.server)  # and at most two at once: each holds its file twice while it is read
    files = store.files()
    selected = selected or (files[0] if files else None)
    if selected is not None:
        store.warm(selected)  # large IRs take seconds to load: start before the browser asks
    models = (*MODELS, "noc") if noc else MODELS
    app.layout = lambda: build_layout(
        store.files(), selected, max_upload_bytes, models, opening_note(store, selected)
    )
    register(app, store)
    register_measured(app, store, {selected: Path(trace)} if trace and selected else {})
    register_mesh(app, store)
    register_layers(app, store)
    register_counters(app, store)
    register_upload_guard(app, max_upload_bytes)
    app.store = store  # type: ignore[attr-defined]  # for tests and the report
    mount_sweep_page(app.server, store.root, max_file_bytes)
    return app
