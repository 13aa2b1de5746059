"""Chiplet boundaries and NoP links on the mesh, from a manifest row's Gemini input line (issue 29: 12)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dashboards import mesh_view
from dashboards.data import FileStore
from dashboards.mesh import NOP_COLOR
from dashboards.wiring import Trigger
from irtools.analysis.chiplets import ChipletCut

SAMPLE = (
    Path(__file__).resolve().parents[2] / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
)
NAME = SAMPLE.name
pytestmark = pytest.mark.usefixtures("no_browser")


def _served(tmp_path: Path, xcut: int) -> FileStore:
    """The 2x2 sample in a folder whose manifest.csv has one run of it, cut in `xcut` along x."""
    shutil.copy(SAMPLE, tmp_path / NAME)
    line = f"7 0 1 2 2 1 1 1 0 {xcut} 1 SI UCIe 128 LPDDR5 1024000 16 512 512 64"
    (tmp_path / "manifest.csv").write_text(f"name,noc_bw,input_line\n{NAME},16,{line}\n")
    return FileStore(tmp_path, 10**7)


def test_a_run_cut_in_two_draws_its_die_boundary_and_nop_links(tmp_path: Path) -> None:
    store = _served(tmp_path, xcut=2)
    store.get(NAME)
    assert store.chiplets(NAME) == ChipletCut(2, 1, 2, 2)
    fig = mesh_view.draw(store, Trigger("current"), NAME, "dependency", "busy", None, 0)
    assert "2 x 1 chiplets of 1 x 2 cores, NoP links purple" in fig.layout.title.text
    boundaries = [s for s in fig.layout.shapes if s.type == "line" and s.line.color == NOP_COLOR]
    assert [(s.x0, s.x1) for s in boundaries] == [(0.5, 0.5)]  # between columns 0 and 1
    [nop] = [t for t in fig.data if t.name == "NoP links"]
    # Per row: the pair across the boundary and the pairs to the DRAM ports on both edges.
    assert sorted(zip(nop.x, nop.y, strict=True)) == [
        (-0.5, 0),
        (-0.5, 1),
        (0.5, 0),
        (0.5, 1),
        (1.5, 0),
        (1.5, 1),
    ]
    assert "NoP link (die to die): (0,0) <-> (1,0)" in nop.text


def test_a_one_chip_run_draws_no_boundary(tmp_path: Path) -> None:
    store = _served(tmp_path, xcut=1)
    store.get(NAME)
    cut = store.chiplets(NAME)
    assert cut is not None and not cut.is_cut
    fig = mesh_view.draw(store, Trigger("current"), NAME, "dependency", "busy", None, 0)
    assert "chiplets" not in fig.layout.title.text and not [t for t in fig.data if t.name == "NoP links"]
