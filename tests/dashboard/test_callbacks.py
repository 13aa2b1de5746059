"""The callbacks as plain functions, and the helpers that read what the browser sends."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from dash import Patch, no_update

from dashboards import callbacks, mesh_view
from dashboards.data import FileStore
from dashboards.wiring import Trigger


@pytest.mark.parametrize(
    ("relayout", "window"),
    [
        ({"xaxis.range[0]": 10, "xaxis.range[1]": 20.5}, (10.0, 20.5)),  # a drag-zoom
        ({"xaxis.range": [5, 7]}, (5.0, 7.0)),  # a pan or a zoom button
        ({"xaxis.autorange": True}, None),  # reset
        ({"autosize": True}, None),  # Plotly after drawing
        ({"xaxis.range[0]": 3, "xaxis.range[1]": 3}, None),
        (None, None),
    ],
)
def test_the_timeline_window_comes_from_plotly_relayout_data(relayout: Any, window: Any) -> None:
    assert callbacks._window(relayout) == window


# The callbacks themselves, called as plain functions with the Trigger Dash would pass.

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_ir" / "valid"
MESH_FILE = "mesh2x2_conv_b1_c4_bw16_stschedule.json"


@pytest.fixture(scope="module")
def store() -> FileStore:
    return FileStore(SAMPLE_DIR, 10**7)


def test_a_file_opens_on_the_core_its_link_names_else_on_its_first(store: FileStore) -> None:
    out = callbacks.load(
        store, Trigger("current"), MESH_FILE, None, None, None, f"?file={MESH_FILE}&core=2", None
    )
    layers, _, cores, core = out[0], out[1], out[2], out[3]
    assert core == 2 and [c["value"] for c in cores] == [0, 1, 2, 3] and layers
    # A link naming a core the file does not have: the first core.
    assert callbacks.load(store, Trigger("current"), MESH_FILE, None, None, None, "?core=77", None)[3] == 0


def test_the_header_has_a_card_per_core_with_its_busy_share_under_the_model(store: FileStore) -> None:
    a = store.get(MESH_FILE).analysis
    s = callbacks.summarize(a, links=False)
    cards = callbacks.core_cards(a, s, "dependency")
    assert [c["core_id"] for c in cards] == [0, 1, 2, 3]
    busy = a.cores.set_index(["model", "core_id"])["busy"]
    assert all(c["busy"] == busy[("dependency", c["core_id"])] for c in cards)
    assert "Pick an IR file" in callbacks.header(store, Trigger("shown"), None, "dependency")
    # A file is asked for but not shown yet: the header does not tell the user to pick one.
    assert callbacks.header(store, Trigger("shown"), None, "dependency", MESH_FILE) == ""


@pytest.mark.parametrize(
    ("page", "trigger", "expected"),
    [
        (1, "findings-next", 2),
        (2, "findings-next", 2),
        (0, "findings-prev", 0),
        (2, "focus", 2),
        (2, "current", 0),
    ],
)
def test_findings_paging_steps_and_stays_inside_the_pages(page: int, trigger: str, expected: int) -> None:
    assert callbacks.next_page(page, 3, trigger) == expected


def test_a_zoom_of_the_timeline_sets_the_view_and_an_address_zoom_of_a_map_does_not(store: FileStore) -> None:
    zoomed = {"xaxis.range[0]": 10, "xaxis.range[1]": 90}
    got = callbacks.zoom(store, Trigger("timeline"), zoomed, None, None, MESH_FILE, "position", None)
    assert got == {"file": MESH_FILE, "x": [10.0, 90.0]}
    # A map on the position axis does not follow the cycles range.
    assert (
        callbacks.zoom(store, Trigger("l2-map"), None, zoomed, None, MESH_FILE, "position", None) is no_update
    )
    # The same view again is no change (no figure redrawn).
    assert (
        callbacks.zoom(store, Trigger("timeline"), zoomed, None, None, MESH_FILE, "cycles", got) is no_update
    )


def test_a_new_range_only_moves_the_axes_of_the_maps(store: FileStore) -> None:
    view = {"file": MESH_FILE, "x": [0, 50]}
    only_view = Trigger("view", ("view.data",))
    l2, wl0, box, _ = callbacks.occupancy(store, only_view, MESH_FILE, 0, None, "dependency", "cycles", view)
    assert isinstance(l2, Patch) and isinstance(wl0, Patch) and box is no_update
    l2, wl0, box, _ = callbacks.occupancy(
        store, Trigger("core", ("core.value",)), MESH_FILE, 0, None, "dependency", "cycles", view
    )
    assert list(l2.layout.xaxis.range) == [0, 50] and box == callbacks.WL0_SHOWN


def test_a_dialect_without_wl0_gets_no_wl0_panel() -> None:
    raw = FileStore(Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-raw", 10**7)
    l2, wl0, box, _ = callbacks.occupancy(
        raw, Trigger("core"), "resnet_2x2_b1_ir.json", 1, None, "dependency", "cycles", None
    )
    assert (
        box == callbacks.WL0_HIDDEN and wl0 == {} and l2.layout.title.text.startswith("L2 KiB held on core 1")
    )


def test_picking_a_transfer_focuses_its_producer_and_readers(store: FileStore) -> None:
    a = store.get(MESH_FILE).analysis
    transfer = int(a.core_transfers["transfer_id"].iloc[0])
    data, core, note, _ = callbacks.focus(
        store, Trigger("transfer"), [], transfer, None, MESH_FILE, "dependency"
    )
    producers, readers = a.transfer_users(transfer)
    assert data["workloads"] == producers + readers and core == producers[0][0]
    assert note.startswith(f"transfer {transfer}: produced by core {producers[0][0]}")


def test_clicking_a_timeline_bar_selects_that_workload(store: FileStore) -> None:
    click = {"points": [{"y": "core 1", "customdata": [0, 7, 3]}]}
    data, core, note, _ = callbacks.focus(
        store, Trigger("timeline"), [], None, click, MESH_FILE, "dependency"
    )
    assert core == 1 and data["workloads"] == [(1, 3)] and note == "selected core 1, workload 7 (position 3)"


def test_a_tile_click_on_the_mesh_picks_its_core(store: FileStore) -> None:
    custom = [2, "core 2", "", "", "", "", "", "", ""]
    core, focus, note, _ = mesh_view.click(
        store, Trigger("mesh"), {"points": [{"customdata": custom}]}, MESH_FILE, "dependency", None
    )
    assert core == 2 and focus["core"] == 2 and "picked on the mesh" in note


def test_the_buffers_live_at_a_cores_l2_peak_add_up_to_it() -> None:
    from irtools.analysis import analyze
    from irtools.analysis.analysis import AnalysisOptions

    raw = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-raw" / "resnet_2x2_b1_ir.json"
    a = analyze(raw, AnalysisOptions(l2_size=512 * 1024))
    peak = a.live_at_peak(2)
    # Core 2 holds 716 KiB at its peak (the block map's "peak 716 of 512"): conv_5_br's 512 KiB of weights first.
    assert peak is not None and peak.held_bytes == 716 * 1024 == peak.buffers["bytes"].sum()
    assert peak.buffers.iloc[0].tolist() == ["weight", "conv_5_br", 512 * 1024]
    # In a window the peak is the window's: never more than the whole schedule's.
    early = a.live_at_peak(2, "dependency", (0, 100_000))
    assert early is not None and early.held_bytes < peak.held_bytes
    head = callbacks.peak_table(a, 2, "dependency", None).children[0].children
    assert head.startswith("Live at the L2 peak of core 2 (1,0) in the whole schedule: 716 KiB in 4 buffers")


def test_progress_loads_the_file_then_shows_it_once(tmp_path: Path) -> None:
    (tmp_path / MESH_FILE).write_bytes((SAMPLE_DIR / MESH_FILE).read_bytes())
    fresh = FileStore(tmp_path, 10**7)
    note, stopped, shown = callbacks.progress(fresh, Trigger("current"), 0, MESH_FILE, None)
    assert note.startswith("Loading") and MESH_FILE in note and not stopped and shown is no_update
    assert _poll(fresh, MESH_FILE) == ("", True, MESH_FILE)  # the views draw it now, once
    assert callbacks.progress(fresh, Trigger("loading-poll"), 2, MESH_FILE, MESH_FILE) == (
        "",
        True,
        no_update,
    )
    assert callbacks.progress(fresh, Trigger("current"), 2, None, MESH_FILE) == ("", True, None)


def test_while_another_file_loads_the_note_names_the_file_the_views_still_show(tmp_path: Path) -> None:
    (tmp_path / MESH_FILE).write_bytes((SAMPLE_DIR / MESH_FILE).read_bytes())
    fresh = FileStore(tmp_path, 10**7)
    note, stopped, shown = callbacks.progress(fresh, Trigger("current"), 0, MESH_FILE, "old.json")
    assert note.endswith("; the views still show old.json") and not stopped and shown is no_update
    first_load = callbacks.progress(fresh, Trigger("current"), 0, MESH_FILE, None)[0]
    assert "still show" not in first_load  # nothing was shown before
    _poll(fresh, MESH_FILE)


def test_a_file_that_cannot_be_loaded_is_shown_with_its_error(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"xlen": 2, ')
    fresh = FileStore(tmp_path, 10**7)
    assert _poll(fresh, "broken.json") == ("", True, "broken.json")  # the load failed: shown, with why
    status = callbacks.header(fresh, Trigger("shown"), "broken.json", "dependency", "broken.json")
    assert status.startswith("⚠ broken.json: not an IR that can be analyzed: invalid JSON")


def _poll(store: FileStore, key: str) -> tuple[str, bool, Any]:
    """The loading poll's answers, a tick every 0.1 s (the load runs in its own thread) until it stops."""
    for ticks in range(600):
        answer = callbacks.progress(store, Trigger("loading-poll"), ticks, key, None)
        if answer[1]:
            return answer
        time.sleep(0.1)
    raise AssertionError(f"{key}: still loading after 60 s")


def test_the_mesh_is_asked_for_after_the_timeline_and_maps_it_shares_its_inputs_with() -> None:
    # Dash holds back a callback while an input of it follows one in flight: the mesh waits for the timeline
    # and the L2 and WL0 maps after a model, core or range change, so the browser draws those first.
    from dashboards.app import create_app

    callbacks_by_output = create_app(SAMPLE_DIR).callback_map
    maps = next(v for k, v in callbacks_by_output.items() if "l2-map.figure" in k)
    mesh = callbacks_by_output["mesh.figure"]
    inputs = {f"{i['id']}.{i['property']}" for i in mesh["inputs"]}
    assert {"maps-sent.data", "timeline-drawn.data", "model.value", "core.value", "view.data"} <= inputs
    drawn = next(v for k, v in callbacks_by_output.items() if k == "timeline-drawn.data")
    assert [f"{i['id']}.{i['property']}" for i in drawn["inputs"]] == ["timeline.figure"]
    assert "maps-sent.data" in next(k for k in callbacks_by_output if "l2-map.figure" in k)
    assert {"model.value", "core.value", "view.data"} <= {
        f"{i['id']}.{i['property']}" for i in maps["inputs"]
    }
