"""What the dashboard redraws on every view change is computed once: wait cycles, links and tiles."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pandas as pd

from irtools.analysis import analyze
from irtools.analysis.analysis import WINDOWS_KEPT
from irtools.analysis.counters import link_steps, run_link_step_sums
from irtools.analysis.link_cost import link_costs
from irtools.analysis.link_load import link_sums, noc_links_table, step_spans
from irtools.analysis.noc import step_costs
from irtools.gemini import GEMINI_FREQUENCY
from irtools.options import RunOptions

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
        pd.testing.assert_frame_equal(links, noc_links_table(a.link_loads(model), None, GEMINI_FREQUENCY))
        tiles = a.tiles(model)
        assert a.tiles(model) is tiles
        pd.testing.assert_frame_equal(tiles, a._tiles(model, None))
    assert a.noc_link_table is a.link_table("dependency")
    # A window is computed for itself, and differs from the whole schedule.
    end = float(a.timeline["end"].max())
    window = (0.0, end / 4)
    assert (
        a.tiles("dependency", window)["busy_share"].tolist() != a.tiles("dependency")["busy_share"].tolist()
    )


def test_the_routed_runs_are_summed_once_for_every_timing_model() -> None:
    """A model gives the whole schedule's link table only its span (the busy share): a model switch in the
    dashboard reuses the sums of the 1.7 million runs of a 64-core file, and the tables stay each model's."""
    a = analyze(MESH, RunOptions(noc_bw=8))
    with mock.patch("irtools.analysis.analysis.link_sums", wraps=link_sums) as summed:
        tables = {model: a.link_table(model) for model in ("dependency", "sequential", "noc")}
    assert summed.call_count == 1
    for model, table in tables.items():
        pd.testing.assert_frame_equal(table, noc_links_table(a.link_loads(model), 8, GEMINI_FREQUENCY))
    assert tables["noc"]["busy_share"].tolist() != tables["sequential"]["busy_share"].tolist()
    # So are the bytes per link and layer step the counters and the heat map read: only their spans differ.
    with mock.patch("irtools.analysis.analysis.run_link_step_sums", wraps=run_link_step_sums) as summed:
        steps = {model: a.link_steps(model) for model in ("dependency", "sequential")}
    assert summed.call_count == 1
    for model, table in steps.items():
        pd.testing.assert_frame_equal(table, link_steps(a.link_loads(model)))  # the routed rows' reference
    # And the cycles each step's NoC time adds, which the link costs of every timing model read.
    with mock.patch("irtools.analysis.analysis.step_costs", wraps=step_costs) as costed:
        costs = {model: a.link_costs(model) for model in ("dependency", "sequential", "noc")}
    assert costed.call_count == 1
    for model, table in costs.items():
        spans = step_spans(a.index, a.timeline, model)
        pd.testing.assert_frame_equal(table, link_costs(step_costs(a.index, a.noc_steps), spans, None))


def test_the_last_windows_tables_are_kept_for_the_next_view_of_the_same_range() -> None:
    # A core picked after a zoom redraws the mesh for the same window: its tables are not summed again.
    a = analyze(MESH)
    end = float(a.timeline["end"].max())
    window = (0.0, end / 4)
    links, tiles = a.link_table("dependency", window), a.tiles("dependency", window)
    assert a.link_table("dependency", window) is links and a.tiles("dependency", window) is tiles
    pd.testing.assert_frame_equal(
        links, noc_links_table(a.link_loads("dependency"), None, GEMINI_FREQUENCY, window)
    )
    assert a.tiles("sequential", window) is not tiles  # by model too
    # Only the last few are kept: after as many other windows, the first is computed again, equal.
    for k in range(1, WINDOWS_KEPT + 1):
        a.link_table("dependency", (0.0, end / (4 + k)))
    again = a.link_table("dependency", window)
    assert again is not links
    pd.testing.assert_frame_equal(again, links)
