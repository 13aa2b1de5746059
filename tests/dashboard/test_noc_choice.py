"""Each served file is timed at its own runs' NoC bandwidth from the folder's manifest.csv (issue 29: 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards import callbacks
from dashboards.data import FileStore
from dashboards.noc_choice import split_key, with_bandwidth
from dashboards.wiring import Trigger
from irtools.analysis.noc import NocModel

NOC_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-noc"
DARKNET = "darknet19_2x2_b1_noc32-128_ul512_ir.json"
pytestmark = pytest.mark.skipif(not NOC_DIR.is_dir(), reason="../shared/fixtures not present")


@pytest.fixture(scope="module")
def served_at_8() -> FileStore:
    return FileStore(NOC_DIR, 10**7, noc=NocModel(8))


def test_serve_noc_bw_8_times_a_file_whose_runs_used_32_at_32(served_at_8: FileStore) -> None:
    runs = served_at_8.noc_runs(DARKNET)
    assert (runs.bandwidths, runs.source, runs.default) == ((32, 128), "manifest.csv", 32)
    a = served_at_8.get(DARKNET).analysis
    # At 8 this file read 1,245,932 cycles; its runs at 32 and 128 report T = 1,105,728 (manifest.csv).
    assert a.noc_model is not None and a.noc_model.bandwidth == 32
    assert a.makespan("noc") == 1_105_728
    # VGG's runs used 8, 32 and 128: --noc-bw 8 is one of them, so it stays.
    assert served_at_8.noc_runs("vgg_4x4_b1_ul512_ir.json").default == 8


def test_the_header_states_the_bandwidth_and_where_it_comes_from(served_at_8: FileStore) -> None:
    status = str(callbacks.header(served_at_8, Trigger("current"), DARKNET, "noc"))
    assert "NoC 32 B/cycle per link (manifest.csv; runs at 32, 128)" in status


def test_picking_another_run_times_the_file_again_at_it(served_at_8: FileStore) -> None:
    new = callbacks.choose_noc(served_at_8, Trigger("noc-bw"), 128, DARKNET)
    assert new == f"{DARKNET}@noc=128" and split_key(new) == (DARKNET, 128)
    assert served_at_8.get(new).analysis.noc_model.bandwidth == 128  # type: ignore[union-attr]
    # Back to the default: the plain key, whose analysis is cached already.
    assert callbacks.choose_noc(served_at_8, Trigger("noc-bw"), 32, new) == DARKNET
    out = callbacks.load(served_at_8, Trigger("current"), new, None, None, None, "", None, "noc")
    assert out[-4] == [{"label": "32", "value": 32}, {"label": "128", "value": 128}] and out[-3] == 128
    assert with_bandwidth(new, None) == DARKNET


def test_without_a_manifest_or_noc_bw_there_is_no_noc_model() -> None:
    store = FileStore(NOC_DIR.parent / "gemini-raw", 10**7)
    a = store.get("resnet_2x2_b1_ir.json").analysis
    assert a.noc_model is None and store.noc_runs("resnet_2x2_b1_ir.json").bandwidths == ()
    out = callbacks.load(
        store, Trigger("current"), "resnet_2x2_b1_ir.json", None, None, None, "", None, "noc"
    )
    assert (
        out[-2] == [{"label": m, "value": m} for m in ("sequential", "dependency")]
        and out[-1] == "dependency"
    )


def test_under_noc_the_cards_show_compute_and_noc_stall_apart_not_100_percent_busy(
    served_at_8: FileStore,
) -> None:
    # VGG 4x4 at NoC 8: every core is occupied the whole 1,941,778 cycles, 1,843,751 of them computing.
    status = callbacks.header(served_at_8, Trigger("current"), "vgg_4x4_b1_ul512_ir.json", "noc")
    texts = [str(c.children) for c in _all(status) if getattr(c, "className", None) == "busy-text"]
    assert len(texts) == 16 and set(texts) == {"95% compute, 5% NoC stall"}
    bars = [c for c in _all(status) if getattr(c, "className", None) == "stall-bar"]
    assert {b.style["width"] for b in bars} == {"5%"}
    # Under the dependency model there is no stall: the card says busy.
    status = callbacks.header(served_at_8, Trigger("current"), "vgg_4x4_b1_ul512_ir.json", "dependency")
    texts = {str(c.children) for c in _all(status) if getattr(c, "className", None) == "busy-text"}
    assert all(t.endswith("% busy") for t in texts)


def _all(component: object) -> list[object]:
    """A Dash component and every component under it."""
    children = getattr(component, "children", None)
    below = children if isinstance(children, list) else [children] if children is not None else []
    return [component, *(c for child in below for c in _all(child))]


def test_under_noc_the_timeline_rows_draw_the_stall_apart(served_at_8: FileStore) -> None:
    a = served_at_8.get("vgg_4x4_b1_ul512_ir.json").analysis
    fig = callbacks.timeline_view(a, "noc", "auto", None, None, None)
    [stall] = [t for t in fig.data if t.name == "NoC-stalled"]
    # 16 rows, each stalled 1,941,778 - 1,843,751 = 98,027 cycles in all (the NoC-bound layers' waits).
    assert sum(stall.x) == 16 * 98_027
    computed = sum(sum(t.x) for t in fig.data if t.type == "bar" and t.name != "NoC-stalled")
    assert computed == 16 * 1_843_751
