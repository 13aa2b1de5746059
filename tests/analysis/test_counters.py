"""Counters under the timeline and the link x time heatmap, as functions (issue 29, beyond the peers)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtools.analysis import analyze
from irtools.analysis.counters import l2_counter, link_heat, link_rate, link_steps, run_link_steps
from irtools.analysis.link_load import LinkLoads, crossing
from irtools.analysis.tiles import held_bytes
from irtools.dialects import Capability
from irtools.reference import reference_core

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
DEADLOCK = ROOT / "sample_ir" / "invalid" / "GIR502-deadlock.json"
FIXTURES = ROOT.parent / "shared" / "fixtures"
VGG = FIXTURES / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json"
REAL_MESHES = [
    VGG,
    FIXTURES / "gemini-noc" / "darknet19_4x4_b4_noc8_ul512_ir.json",
    FIXTURES / "gemini-raw" / "resnet_4x4_b4_ff1_ss2_rr50_ir.json",
    FIXTURES / "gemini-alloc" / "resnet_4x4_b4_ff1_ss2_rr50_alloc.json",
]

A = (0, 0, 1, 0)  # (0,0)->(1,0)
B = (-1, 0, 0, 0)  # DRAM W0->(0,0)


def _loads() -> LinkLoads:
    """Link A carries 100 bytes in step 0 (cycles 0-50) and 50 in step 1 (50-100); link B 10 + 20 bytes
    of two transfers in step 0."""
    rows = [
        (0, "core", 1, *A, 100),
        (1, "core", 2, *A, 50),
        (0, "dram_read", 3, *B, 10),
        (0, "dram_read", 4, *B, 20),
    ]
    frame = pd.DataFrame(rows, columns=["step", "kind", "transfer", "x", "y", "to_x", "to_y", "bytes"])
    return LinkLoads(
        lambda: frame,
        step_start=np.array([0.0, 50.0]),
        step_end=np.array([50.0, 100.0]),
        core=pd.DataFrame(),
        xlen=2,
        span=(0.0, 100.0),
        steps=[("conv1", 0), ("conv2", 0)],
    )


def test_the_heatmap_holds_each_links_bytes_per_cycle_per_bin_heaviest_first() -> None:
    heat = link_heat(_loads(), bins=4)
    assert heat.labels == ["(0,0)->(1,0)", "DRAM W0->(0,0)"]
    assert heat.rate.round(6).tolist() == [[2, 2, 1, 1], [0.6, 0.6, 0, 0]]
    assert heat.total.tolist() == [150, 30]
    # A window cuts the bins to it: 25-50 and 50-75.
    heat = link_heat(_loads(), bins=2, window=(25.0, 75.0))
    assert heat.rate.round(6).tolist() == [[2, 1], [0.6, 0]]


def test_a_links_rate_is_a_step_function_of_the_steps_running() -> None:
    steps = link_steps(_loads())
    rate = link_rate(steps, A)
    assert rate["cycle"].tolist() == [0, 50, 100] and rate["bytes_per_cycle"].tolist() == [2, 1, 0]
    assert link_rate(steps, (5, 5, 6, 5)).empty


@pytest.mark.skipif(not VGG.is_file(), reason="../shared/fixtures not present")
def test_on_vgg_the_heatmaps_bytes_are_the_noc_links_tables() -> None:
    a = analyze(VGG)
    loads = a.link_loads("dependency")
    assert loads is not None
    heat = link_heat(loads, bins=50)
    table = a.link_table("dependency").set_index("link")["bytes"]
    assert len(heat.labels) == len(table)
    got = dict(zip(heat.labels, heat.total.round().astype(int), strict=True))
    assert got == table.to_dict()  # every link's bytes, binned and summed back
    assert round(heat.total[0]) == table.iloc[0]  # heaviest first, as the table
    # The busiest link's rate integrates to its bytes.
    rate = a.link_rate("dependency", heat.links[0])
    assert rate is not None
    area = float(np.sum(np.diff(rate["cycle"].to_numpy()) * rate["bytes_per_cycle"].to_numpy()[:-1]))
    assert area == pytest.approx(heat.total[0])


@pytest.mark.parametrize("path", [MESH, *REAL_MESHES], ids=lambda p: p.name)
def test_a_links_transfers_from_the_runs_through_it_are_its_rows(path: Path) -> None:
    if not path.is_file():
        pytest.skip("../shared/fixtures not present")
    a = analyze(path)
    loads = a.link_loads("dependency")
    assert loads is not None
    table = a.link_table("dependency")
    end = loads.span[1]
    for k in sorted({0, len(table) // 3, len(table) // 2, len(table) - 1}):  # ports' links too
        r = table.iloc[k]
        link = (int(r.x), int(r.y), int(r.to_x), int(r.to_y))
        whole = crossing(loads, a.noc_runs, link)
        assert int(whole["bytes"].sum()) == int(r.bytes)  # every transfer on a link the table lists
        with reference_core():
            pd.testing.assert_frame_equal(whole, crossing(loads, a.noc_runs, link), check_exact=True)
        window = (0.2 * end, 0.6 * end)
        fast = crossing(loads, a.noc_runs, link, window)
        with reference_core():
            pd.testing.assert_frame_equal(fast, crossing(loads, a.noc_runs, link, window), check_exact=True)
    assert crossing(loads, a.noc_runs, (9, 9, 9, 9)).empty  # no such link


@pytest.mark.parametrize("path", [MESH, DEADLOCK, *REAL_MESHES], ids=lambda p: p.name)
def test_the_link_steps_from_runs_are_the_routed_rows_summed(path: Path) -> None:
    if not path.is_file():
        pytest.skip("../shared/fixtures not present")
    a = analyze(path)
    for model in ("dependency", "sequential"):
        loads = a.link_loads(model)
        assert loads is not None
        pd.testing.assert_frame_equal(run_link_steps(a.noc_runs, loads), link_steps(loads))
    # A step none of whose workloads can be scheduled (all in a wait cycle) has no span: its links are left out.
    unscheduled = loads.step_start.copy()
    unscheduled[1] = np.nan
    cut = dataclasses.replace(loads, step_start=unscheduled)
    expected = link_steps(cut)
    assert 1 not in set(expected["step"]) and len(expected)
    pd.testing.assert_frame_equal(run_link_steps(a.noc_runs, cut), expected)


def test_the_mesh_its_windows_links_heat_counters_and_crossings_never_expand_the_routed_rows() -> None:
    # Millions of rows on a 64-core file (a row per link and transfer): the runs hold the same.
    a = analyze(MESH)
    for model in ("dependency", "sequential"):
        a.link_table(model), a.tiles(model), a.link_heat(model, 20)
        a.link_table(model, (0.0, 10_000.0)), a.tiles(model, (0.0, 10_000.0))
        assert a.link_rate(model, A) is not None
    loads = a.link_loads("dependency")
    assert loads is not None and not crossing(loads, a.noc_runs, A).empty
    assert "noc_links" not in a.__dict__
    with reference_core():
        assert not crossing(loads, a.noc_runs, A).empty  # the reference's way makes them
    assert "noc_links" in a.__dict__


def test_the_l2_counter_is_each_workloads_snapshot_from_its_start() -> None:
    a = analyze(MESH)
    held = held_bytes(a.l2_blocks, a.l2_occupancy, not a.index.has(Capability.L2_ADDRESSES))
    counter = l2_counter(a.timeline, held, "dependency", 0)
    rows = a.timeline[(a.timeline["model"] == "dependency") & (a.timeline["core_id"] == 0)].sort_values(
        "start"
    )
    mine = held[held["core_id"] == 0].set_index("position")["held_bytes"]
    assert counter["cycle"].tolist()[:-1] == rows["start"].tolist()
    assert counter["held_bytes"].tolist()[:-1] == [float(mine[p]) for p in rows["position"]]
    assert counter["cycle"].iloc[-1] == rows["end"].max()
