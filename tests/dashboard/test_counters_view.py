"""The counter tracks under the timeline and the link x time heatmap, as callbacks called as functions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from dash import Patch, no_update

from dashboards import counters_view
from dashboards.data import FileStore
from dashboards.wiring import Trigger

NOC_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-noc"
VGG = "vgg_4x4_b1_ul512_ir.json"
pytestmark = [
    pytest.mark.skipif(not NOC_DIR.is_dir(), reason="../shared/fixtures not present"),
    pytest.mark.usefixtures("no_browser"),
]


@pytest.fixture(scope="module")
def store() -> FileStore:
    return FileStore(NOC_DIR, 10**7)  # VGG at its manifest's NoC 8


def test_the_counters_show_the_cores_l2_and_the_busiest_links_rate(store: FileStore) -> None:
    fig = counters_view.counters(store, Trigger("current"), VGG, "noc", 1, None, None)
    held, rate = [t for t in fig.data if t.name != "span"]  # "span": the invisible bars aligning the axis
    a = store.get(VGG).analysis
    # Core 1's L2 track is its snapshots in time order; the link track is the whole schedule's busiest.
    assert list(held.y[:-1]) == a.l2_counter(1, "noc")["held_bytes"].tolist()[:-1]
    busiest = a.link_table("noc").iloc[0]["link"]
    assert rate.name == f"bytes/cycle on {busiest}"
    capacity = "10.4 B/cycle (NoC 8 B/cycle at Gemini's frequency 1.3)"
    assert f"dotted: its capacity, {capacity}" in fig.layout.title.text
    # The noc model times each step by its heaviest link: no step's rate on a link is above the capacity.
    # (A NoC-bound step runs at it, within the model's truncation of the NoC time to whole cycles.)
    assert max(rate.y) == pytest.approx(10.4, rel=1e-4)


def test_a_link_clicked_in_the_heatmap_or_on_the_mesh_is_the_rate_tracks(store: FileStore) -> None:
    heat_click = {"points": [{"y": "DRAM W0->(0,0)", "x": 100.0}]}
    assert counters_view.pick(store, Trigger("link-heat"), heat_click, None, VGG) == "DRAM W0->(0,0)"
    mesh_click = {"points": [{"customdata": ["(0,1)->(0,0)", 1, 2]}]}
    assert counters_view.pick(store, Trigger("mesh"), None, mesh_click, VGG) == "(0,1)->(0,0)"
    tile_click = {"points": [{"customdata": [5, "core 5"]}]}
    assert counters_view.pick(store, Trigger("mesh"), None, tile_click, VGG) is no_update
    fig = counters_view.counters(store, Trigger("picked-link"), VGG, "noc", 1, "DRAM W0->(0,0)", None)
    assert fig.data[1].name == "bytes/cycle on DRAM W0->(0,0)"  # after the L2 track


def test_a_zoom_only_moves_the_counters_axes(store: FileStore) -> None:
    view = {"file": VGG, "x": [1000.0, 5000.0]}
    patch = counters_view.counters(store, Trigger("view", ("view.data",)), VGG, "noc", 1, None, view)
    assert isinstance(patch, Patch)


def test_the_heatmap_has_a_row_per_loaded_link_and_the_share_of_the_bandwidth(store: FileStore) -> None:
    fig = counters_view.heat(store, Trigger("current"), VGG, "noc", None)
    [heat] = fig.data
    a = store.get(VGG).analysis
    links = a.link_table("noc")
    assert len(heat.y) == len(links) and heat.y[0] == links.iloc[0]["link"]
    z = np.asarray(heat.z, dtype=float)
    assert z.shape == (len(links), counters_view.HEAT_BINS)
    assert z.max() == pytest.approx(1.0, rel=1e-4)  # NoC-bound steps fill their link
    assert heat.colorbar.title.text == "share of capacity"
    # Zoomed to a window, the bins cover the window.
    fig = counters_view.heat(store, Trigger("view"), VGG, "noc", {"file": VGG, "x": [0.0, 40_000.0]})
    assert fig.data[0].x[0] < 1_000 and fig.data[0].x[-1] > 39_000
    assert counters_view.show_heat(store, Trigger("current"), VGG) == {"display": "block"}
