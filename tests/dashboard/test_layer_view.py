"""The layer view: Gemini's cost per layer (the layer_cost table) on the page, or why it has none (issue 30: 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dashboards import layer_view
from dashboards.data import FileStore
from dashboards.wiring import Trigger
from irtools.analysis.layer_cost import layer_cost_absent
from irtools.analysis.units import format_energy

NOC_DIR = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-noc"
VGG = "vgg_4x4_b1_ul512_ir.json"
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_ir" / "valid"
MESH_FILE = "mesh2x2_conv_b1_c4_bw16_stschedule.json"


def _texts(component: Any) -> list[str]:
    """Every string in a Dash component tree, depth first."""
    if isinstance(component, str):
        return [component]
    children = getattr(component, "children", None)
    if children is None:
        return []
    if not isinstance(children, list):
        children = [children]
    return [t for c in children for t in _texts(c)]


def _find(component: Any, wanted: str) -> Any:
    """The component with id `wanted` in a Dash component tree."""
    if getattr(component, "id", None) == wanted:
        return component
    children = getattr(component, "children", None)
    for c in children if isinstance(children, list) else [children] if children is not None else []:
        found = _find(c, wanted)
        if found is not None:
            return found
    return None


@pytest.mark.skipif(not NOC_DIR.is_dir(), reason="../shared/fixtures not present")
def test_vgg_at_noc_8_lists_every_layer_and_its_total_time_is_geminis_t() -> None:
    store = FileStore(NOC_DIR, 10**7)  # the manifest times VGG at its first run's NoC 8
    view = layer_view.show(store, Trigger("current"), VGG)
    table = _find(view, "layer-cost-table")
    head, body = table.children
    headings = [th.children for th in head.children.children]
    assert headings[:6] == [
        "layer",
        "groups",
        "compute (cycles)",
        "NoC (cycles)",
        "DRAM (cycles)",
        "time (cycles)",
    ]
    assert "hops (bytes x hops)" in headings and "NoC energy" in headings
    rows = [[td.children for td in tr.children] for tr in body.children]
    assert len(rows) == 22  # 21 layers and the totals
    first = dict(zip(headings, rows[0], strict=True))
    # conv1 waits on the NoC: 401,408 bytes on DRAM W1->DRAM W2 at 8 B/cycle (manifest row 1's T is the sum).
    assert (first["layer"], first["bound"], first["bounding link"]) == ("conv1", "NoC", "DRAM W1->DRAM W2")
    assert first["time (cycles)"] == "38,596" and first["link bytes (bytes)"] == "401,408"
    total = dict(zip(headings, rows[-1], strict=True))
    assert total["layer"] == "all layers" and total["time (cycles)"] == "1,941,778"  # manifest: T:1941778
    # Terms the IR does not determine read n/d, never 0, and the page says why.
    assert first["MAC energy"] == "n/d" and first["NoC energy"] == "30.1 µJ"
    assert "mac: Gemini's MAC energy comes from the intra-core mapping" in " ".join(_texts(view))


def test_without_a_noc_bandwidth_the_view_says_why_it_has_no_rows() -> None:
    store = FileStore(SAMPLE_DIR, 10**7)
    view = layer_view.show(store, Trigger("current"), MESH_FILE)
    assert view.id == "layer-cost-absent"
    assert "no NoC bandwidth is known for this file" in view.children
    assert layer_view.show(store, Trigger("current"), None) == ""


def test_without_a_mesh_the_view_says_the_transfers_cannot_be_routed(tmp_path: Path) -> None:
    doc = json.loads((SAMPLE_DIR / MESH_FILE).read_text())
    del doc["xlen"], doc["ylen"]
    (tmp_path / "flat.json").write_text(json.dumps(doc))
    from irtools.analysis.noc import NocModel

    view = layer_view.show(FileStore(tmp_path, 10**7, noc=NocModel(16)), Trigger("current"), "flat.json")
    assert "records no mesh (xlen, ylen)" in view.children
    assert layer_cost_absent(True, True) is None


@pytest.mark.parametrize(
    ("pj", "text"),
    [
        (30_084_741.12, "30.1 µJ"),
        (4.796e9, "4.8 mJ"),
        (658_807_511.0, "659 µJ"),
        (17.0, "17 pJ"),
        (float("nan"), ""),
    ],
)
def test_energy_reads_in_units_people_read(pj: float, text: str) -> None:
    assert format_energy(pj) == text
