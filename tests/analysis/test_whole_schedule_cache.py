"""What the dashboard redraws on every view change is computed once: wait cycles, links and tiles."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pandas as pd

from irtools.analysis import analyze
from irtools.analysis.link_load import noc_links_table

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
DEADLOCK = ROOT / "sample_ir" / "invalid" / "GIR502-deadlock.json"


def test_wait_cycles_skip_the_wait_graph_when_every_workload_is_placed() -> None:
    a = analyze(MESH)
    a.schedules  # noqa: B018 - the schedules build their own wait graph
    with mock.patch("irtools.analysis.analysis.wait_graph", side_effect=AssertionError("walked")):
        assert a.wait_cycles == []  # Kahn's order placed everything: no cycle to look for
    # A file with a cycle still gets it (the schedule leaves its workloads unplaced).
    assert analyze(DEADLOCK).wait_cycles == [[(0, 0), (2, 0), (2, 1), (2, 2)]]


def test_the_whole_schedules_link_table_and_tiles_are_kept_per_model() -> None:
    a = analyze(MESH)
    for model in ("dependency", "sequential"):
        links = a.link_table(model)
        assert a.link_table(model) is links
        pd.testing.assert_frame_equal(links, noc_links_table(a.link_loads(model), None))
        tiles = a.tiles(model)
        assert a.tiles(model) is tiles
        pd.testing.assert_frame_equal(tiles, a._tiles(model, None))
    assert a.noc_link_table is a.link_table("dependency")
    # A window is computed for itself, and differs from the whole schedule.
    end = float(a.timeline["end"].max())
    window = (0.0, end / 4)
    assert a.link_table("dependency", window) is not a.link_table("dependency", window)
    assert (
        a.tiles("dependency", window)["busy_share"].tolist() != a.tiles("dependency")["busy_share"].tolist()
    )
