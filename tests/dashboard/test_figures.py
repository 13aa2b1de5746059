"""Figure builders: what they draw, how they scale, and that IR text is escaped."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboards import figures, timeline
from dashboards.figures import Focus, occupancy_figure
from dashboards.timeline import timeline_figure
from irtools.analysis import analyze

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


@pytest.fixture(scope="module")
def mesh():  # type: ignore[no-untyped-def]
    return analyze(MESH)


def test_timeline_has_a_bar_per_workload_and_marks_the_critical_path(mesh) -> None:  # type: ignore[no-untyped-def]
    fig = timeline_figure(mesh.timeline, "dependency", core_transfers=mesh.core_transfers)
    bars = [t for t in fig.data if t.type == "bar"]
    assert sum(len(t.x) for t in bars) == 5
    rail = [t for t in fig.data if t.name == "critical path" and t.showlegend is not False]
    assert len(rail) == 1  # one legend entry; a black line under it makes the yellow rail
    assert list(rail[0].y).count(None) == 3  # Conv_0 on core 1 -> Conv_1 -> Relu_2 on core 2
    assert [x for x in rail[0].x if x is not None] == [0, 42000, 42000, 94000, 94000, 102192]
    arrows = next(t for t in fig.data if t.name == "transfers")
    assert sum(x is None for x in arrows.x) == 4  # four cross-core transfers
    assert "makespan 102,192 cycles" in fig.layout.title.text
    assert len(fig.layout.shapes) == 1  # the makespan line; data never becomes layout shapes


def test_layer_filter_dims_other_layers(mesh) -> None:  # type: ignore[no-untyped-def]
    fig = timeline_figure(mesh.timeline, "sequential", layers=["Relu_2"])
    opacities = np.concatenate([np.asarray(t.marker.opacity) for t in fig.data if t.type == "bar"])
    assert sorted(opacities.tolist()) == [0.2, 0.2, 0.2, 0.2, 1.0]


def test_focus_outlines_workloads_and_zooms(mesh) -> None:  # type: ignore[no-untyped-def]
    focus = Focus(workloads=frozenset({(2, 1)}), core_id=2, position=1)
    fig = timeline_figure(mesh.timeline, "dependency", focus=focus)
    assert [len(t.x) for t in fig.data if t.name == "focus"] == [1]
    low, high = fig.layout.xaxis.range
    assert low < 94000 and high > 102192  # Relu_2 runs 94000-102192


def test_occupancy_draws_wrapped_tensors_in_two_pieces(mesh) -> None:  # type: ignore[no-untyped-def]
    fig = occupancy_figure(
        mesh.tensors,
        mesh.l2_occupancy,
        core_id=0,
        capacity=mesh.buffersize,
        regions=[(0, 1 << 19), (1 << 19, 1 << 20)],
    )
    bars = [t for t in fig.data if t.type == "bar"]
    bases = sorted(int(b) for t in bars for b in t.base)
    assert bases == [0, 32768, 65536, 520192]  # the ifmap wraps: [520192, 524288) + [0, 256)
    assert len(fig.layout.shapes) == 2  # the region boundary at 512 KiB and the capacity line


def test_text_from_the_ir_is_escaped(mesh) -> None:  # type: ignore[no-untyped-def]
    timeline = mesh.timeline.assign(layer_name="<img src=x onerror=alert(1)>", layer_type="<b>pe</b>")
    fig = timeline_figure(timeline, "dependency")
    payload = fig.to_json()
    assert "<img" not in payload and "<b>pe" not in payload
    assert "&lt;img src=x onerror=alert(1)&gt;" in payload


def test_many_tensors_become_a_heatmap(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 30_000
    rng = np.random.default_rng(0)
    first = rng.integers(0, 1000, n)
    address = rng.integers(0, 1 << 20, n) // 64 * 64
    tensors = pd.DataFrame(
        {
            "core_id": 0,
            "layer_name": "L",
            "transfer_ids": "1",
            "address": address,
            "size": 4096,
            "first_position": first,
            "last_position": first + 3,
            "first_workload_id": first,
            "last_workload_id": first + 3,
            "overlaps": False,
        }
    )
    occupancy = pd.DataFrame(
        {
            "core_id": 0,
            "position": range(1003),
            "workload_id": range(1003),
            "layer_name": "L",
            "total_bytes": 0,
        }
    )
    fig = occupancy_figure(tensors, occupancy, core_id=0, capacity=(1 << 20) + 4096, kind="WL0")
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 1 and "aggregated: 30,000 rectangles" in fig.layout.title.text
    z = np.asarray(heat[0].z, dtype=float)
    # Every tensor is counted in each of its 4 snapshots and at least one address bin.
    assert np.nansum(z) >= 4 * n
    assert len(json.dumps(fig.to_plotly_json(), default=str)) < 8_000_000
    assert figures.MAX_RECTANGLES < n


def test_unschedulable_workloads_and_their_wait_cycle_are_drawn() -> None:
    a = analyze(ROOT / "sample_ir" / "invalid" / "GIR502-deadlock.json")
    fig = timeline_figure(a.timeline, "dependency", wait_cycles=a.wait_cycles)
    stuck = next(t for t in fig.data if t.name == "cannot start (GIR502)")
    # Core 0 waits on core 2 which waits on core 0; core 3 waits on core 0: only core 1 can run.
    # Each core's stuck workloads are hatched back to back from cycle 0 (nothing placed before them).
    assert list(zip(stuck.y, stuck.base)) == [
        ("core 0", 0),
        ("core 2", 0),
        ("core 2", 52000),
        ("core 2", 60192),
        ("core 3", 0),
    ]
    cycle = next(t for t in fig.data if t.name == "wait cycle (GIR502)")
    # core 2 wl 0 waits for core 0 wl 0 (ends 41000); core 0 wl 0 waits for core 2 wl 2 (ends 68384).
    assert list(zip(cycle.x, cycle.y)) == [
        (41000, "core 0"),
        (0, "core 2"),
        (None, None),
        (68384, "core 2"),
        (0, "core 0"),
        (None, None),
    ]
    assert "5 workloads cannot be scheduled" in fig.layout.title.text
    # The GIR502 finding names core 2's workload 0: selecting it outlines its hatched bar.
    focused = timeline_figure(
        a.timeline, "dependency", wait_cycles=a.wait_cycles, focus=Focus(workloads=frozenset({(2, 0)}))
    )
    stuck = next(t for t in focused.data if t.name == "cannot start (GIR502)")
    assert list(stuck.marker.line.width) == [1.5, 3.0, 1.5, 1.5, 1.5]
    assert fig.layout.yaxis.range == (-0.5, 3.5)  # all four cores keep their row


def test_transfer_arrows_are_capped(mesh, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(timeline, "MAX_ARROWS", 2)
    fig = timeline_figure(mesh.timeline, "dependency", core_transfers=mesh.core_transfers)
    arrows = next(t for t in fig.data if t.name.startswith("transfers"))
    assert arrows.name == "transfers (first 2 of 4)" and len(arrows.x) == 6


def _schedule(*workloads: tuple[int, str, int, int]) -> pd.DataFrame:
    """A dependency-model timeline from (core, layer_type, start, end)."""
    return pd.DataFrame(
        [
            {
                "model": "dependency",
                "core_id": core,
                "position": i,
                "workload_id": i,
                "layer_name": f"L{i}",
                "layer_type": kind,
                "start": start,
                "end": end,
                "time": end - start,
                "critical": False,
                "ifmap_transfers": "",
                "ofmap_transfers": "",
            }
            for i, (core, kind, start, end) in enumerate(workloads)
        ]
    )


def _by_row(heat: go.Heatmap, values: object) -> dict[str, list[float]]:
    """A heatmap's rows of `values` (its z, customdata...) by the row's label."""
    return {
        label: np.asarray(row, dtype=float).tolist()
        for label, row in zip(heat.y, np.asarray(values), strict=True)
    }


def _texts(heat: go.Heatmap) -> dict[str, list[str]]:
    """A heatmap's hover texts by the row's label."""
    return {label: list(row) for label, row in zip(heat.y, heat.text, strict=True)}


def test_many_workloads_become_busy_time_per_bin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 2)
    monkeypatch.setattr(timeline, "TIME_BINS", 4)
    # Core 0 is busy all along (pe, then vp); core 1 runs pe for 10 of the first 25 cycles.
    frame = _schedule((0, "pe", 0, 50), (0, "vp", 50, 100), (1, "pe", 0, 10))
    fig = timeline_figure(frame, "dependency")
    [heat] = [t for t in fig.data if t.type == "heatmap"]
    assert not [t for t in fig.data if t.type == "bar"]
    # The hover's computing share per bin, float32; no NoC-stalled share where nothing stalls.
    computing = _by_row(heat, heat.customdata)
    np.testing.assert_allclose(computing["core 0"], [1, 1, 1, 1], rtol=1e-6)
    np.testing.assert_allclose(computing["core 1"], [0.4, 0, 0, 0], rtol=1e-6)
    assert "NoC-stalled" not in heat.hovertemplate  # no stall outside the noc model
    z = _by_row(heat, heat.z)
    assert z["core 0"] == [0, 0, 1, 1]  # pe, pe, vp, vp (layer types sorted: pe=0, vp=1)
    assert z["core 1"][0] == 2 and np.isnan(z["core 1"][1:]).all()  # pale pe (under half busy), then idle
    assert sorted(t.name for t in fig.data if t.type == "scatter") == ["pe", "vp"]  # the legend


def _stalled(frame: pd.DataFrame, stretch: dict[int, int]) -> pd.DataFrame:
    """`frame` as the noc model times it: workload i keeps its IR time but ends `stretch[i]` later."""
    out = frame.assign(model="noc", noc_time=frame["time"], noc_link="(0,0)->(1,0)")
    for i, extra in stretch.items():
        out.loc[i, "noc_time"] = out.loc[i, "time"] + extra
    # One workload per core: nothing after it moves.
    return out.assign(end=(out["start"] + out["noc_time"]).astype("int64"))


def test_noc_stalls_are_drawn_apart_from_compute_on_the_rows() -> None:
    # Core 0 computes 0-50 then stalls on the NoC until 80; core 1 computes 0-10, no stall.
    frame = _stalled(_schedule((0, "pe", 0, 50), (1, "pe", 0, 10)), {0: 30})
    fig = timeline_figure(frame, "noc")
    [pe] = [t for t in fig.data if t.name == "pe"]
    assert list(pe.base) == [0, 0] and list(pe.x) == [50, 10]  # the layer colour covers compute only
    [stall] = [t for t in fig.data if t.name == "NoC-stalled"]
    assert list(stall.base) == [50] and list(stall.x) == [30] and list(stall.y) == ["core 0"]


def test_the_aggregated_rows_count_noc_stalls_apart_and_colour_bins_mostly_stalled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 1)
    monkeypatch.setattr(timeline, "TIME_BINS", 4)
    # Core 0 computes 0-20 and stalls 20-80 (bins of 20 cycles); core 1 computes 0-80.
    frame = _stalled(_schedule((0, "pe", 0, 20), (1, "pe", 0, 80)), {0: 60})
    fig = timeline_figure(frame, "noc")
    [heat] = [t for t in fig.data if t.type == "heatmap"]
    custom = np.asarray(heat.customdata)
    assert _by_row(heat, custom[..., 0]) == {"core 0": [1, 0, 0, 0], "core 1": [1, 1, 1, 1]}  # computing
    assert _by_row(heat, custom[..., 1]) == {"core 0": [0, 1, 1, 1], "core 1": [0, 0, 0, 0]}  # NoC-stalled
    # pe, then the stall colour (index 2k with one layer type)
    assert _by_row(heat, heat.z)["core 0"] == [0, 2, 2, 2]
    assert "NoC-stalled (more than computing)" in [t.name for t in fig.data if t.type == "scatter"]


def test_the_aggregated_rows_are_parted_by_lines_not_gaps_in_the_heatmap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A heatmap with a ygap is painted brick by brick (seconds on large files): the rows' gaps are lines.
    monkeypatch.setattr(timeline, "MAX_BARS", 1)
    frame = _schedule((0, "pe", 0, 50), (1, "vp", 50, 100), (2, "pe", 0, 10))
    fig = timeline_figure(frame, "dependency")
    [heat] = [t for t in fig.data if t.name == "busy time"]
    assert heat.ygap == 0
    gaps = [s for s in fig.layout.shapes if s.type == "line" and s.xref == "paper"]
    assert sorted(s.y0 for s in gaps) == [0.5, 1.5] and all(s.line.color == "white" for s in gaps)


def test_zooming_in_brings_back_the_bars_of_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 2)
    frame = _schedule((0, "pe", 0, 50), (0, "vp", 50, 100), (1, "pe", 0, 10))
    fig = timeline_figure(frame, "dependency", window=(40, 60))
    bars = [t for t in fig.data if t.type == "bar"]
    assert sorted(int(b) for t in bars for b in t.base) == [0, 50]  # core 0's two workloads only
    assert list(fig.layout.xaxis.range) == [40, 60]


def test_the_whole_timeline_of_a_real_file_is_aggregated_only_past_the_limit(mesh) -> None:  # type: ignore[no-untyped-def]
    assert not timeline.aggregated(mesh.timeline, "dependency")
    fig = timeline_figure(mesh.timeline, "dependency")
    assert not [t for t in fig.data if t.type == "heatmap"]


def test_a_static_aggregated_timeline_says_where_to_see_single_workloads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 1)
    frame = _schedule((0, "pe", 0, 50), (0, "vp", 50, 100))
    [live] = timeline_figure(frame, "dependency").layout.annotations
    [static] = timeline_figure(frame, "dependency", zoomable=False).layout.annotations
    assert "zoom in" in live.text and "irtools serve" in static.text


def test_sequential_arrows_never_point_back_in_time(mesh) -> None:  # type: ignore[no-untyped-def]
    # In the sequential model every core starts at 0, so all four consumers start before their
    # producers end: the dependency model draws the four arrows, the sequential one none.
    dependency = timeline_figure(mesh.timeline, "dependency", core_transfers=mesh.core_transfers)
    sequential = timeline_figure(mesh.timeline, "sequential", core_transfers=mesh.core_transfers)
    arrows = next(t for t in dependency.data if t.name == "transfers")
    assert all(arrows.x[i] <= arrows.x[i + 1] for i in range(0, len(arrows.x), 3))
    assert not [t for t in sequential.data if t.name == "transfers" and len(t.x)]


def test_a_layer_filter_keeps_only_its_transfers(mesh) -> None:  # type: ignore[no-untyped-def]
    def arrows(layers: list[str]) -> int:
        fig = timeline_figure(mesh.timeline, "dependency", core_transfers=mesh.core_transfers, layers=layers)
        return sum(sum(x is None for x in t.x) for t in fig.data if t.name == "transfers")

    # Conv_0 (cores 0 and 1) feeds Conv_1 on cores 2 and 3: four transfers; Relu_2 reads its input
    # on its own core, so no cross-core arrow touches it.
    assert arrows(["Conv_1"]) == 4
    assert arrows(["Relu_2"]) == 0


def test_byte_axes_use_binary_units() -> None:
    values, labels = figures.byte_ticks(1 << 20, 8)
    assert values[1] == 128 * 1024
    assert labels[:3] == ["0 B", "128 KiB", "256 KiB"] and labels[-1] == "1 MiB"
    assert figures.format_bytes(448) == "448 B" and figures.format_bytes(13 * 1024) == "13 KiB"


def test_an_out_of_bounds_tensor_is_inside_the_plotted_range() -> None:
    a = analyze(ROOT / "sample_ir" / "invalid" / "GIR301-buffer-out-of-bounds.json")
    fig = occupancy_figure(a.tensors, a.l2_occupancy, core_id=3, capacity=a.buffersize)
    # Core 3's weight starts at the buffer end 0x100000 and is 4608 bytes long.
    assert fig.layout.yaxis.range[1] >= 0x100000 + 4608
    assert [t.name for t in fig.data if t.name == "out of bounds (GIR301)"]
    assert any("L2 end (1 MiB)" in (an.text or "") for an in fig.layout.annotations)


def test_an_empty_map_says_why() -> None:
    a = analyze(ROOT.parent / "shared" / "fixtures" / "npu-simulator" / "ir_ramulator2_dram_test_slice.json")
    fig = occupancy_figure(a.tensors, a.l2_occupancy, core_id=0, capacity=a.buffersize)
    # Its L2 entries have boolean addresses (GIR101), so no tensor can be drawn.
    assert [an.text for an in fig.layout.annotations] == [
        "no L2 tensors to draw: this core's entries<br>broke the schema (see the findings)"
    ]


def test_the_aggregated_timeline_draws_the_critical_path_and_its_hand_offs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 2)
    monkeypatch.setattr(timeline, "TIME_BINS", 4)
    # The chain: core 0 runs 0-50, hands off to core 1 (60-100); core 0's 50-60 is off the path.
    frame = _schedule((0, "pe", 0, 50), (0, "vp", 50, 60), (1, "pe", 60, 100))
    frame["critical"] = [True, False, True]
    fig = timeline_figure(frame, "dependency")
    assert [t for t in fig.data if t.name == "busy time"]  # aggregated
    # The strip: the bins (25 cycles each) the chain passes through, per core, yellow on black in
    # the middle fifth of the row: rows bottom up (core 1, core 0) as the category axis counts them.
    [strip] = [t for t in fig.data if t.name == "critical path"]
    assert strip.type == "heatmap" and strip.showlegend and strip.hoverinfo == "skip"
    core_1 = [[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 2, 2], [0, 0, 1, 1], [0, 0, 0, 0]]
    core_0 = [[0, 0, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]
    assert np.asarray(strip.z).tolist() == core_1 + core_0  # 0 clear, 1 black, 2 yellow
    # Evenly spaced fifths (Plotly then draws one image, not cell by cell) centred on the rows,
    # on an axis over the category one with its range, so a zoom moves both alike.
    assert (strip.y0, strip.dy, strip.x0, strip.dx) == (-0.4, 0.2, 12.5, 25)
    assert strip.yaxis == "y2" and fig.layout.yaxis2.overlaying == "y" and not fig.layout.yaxis2.visible
    assert list(fig.layout.yaxis2.range) == list(fig.layout.yaxis.range) == [-0.5, 1.5]
    # What runs there, on the busy map's hover.
    [busy] = [t for t in fig.data if t.name == "busy time"]
    assert _texts(busy)["core 0"][:2] == ["pe<br>critical path: <b>L0</b>"] * 2
    [hand] = [t for t in fig.data if t.name == "critical path: core to core"]
    assert list(hand.x) == [50, 60, None] and list(hand.y) == ["core 0", "core 1", None]


def test_the_aggregated_critical_path_names_what_runs_in_each_bin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 2)
    monkeypatch.setattr(timeline, "TIME_BINS", 4)  # bins of 30 cycles over 0-120
    # Core 0: three short critical workloads in the first bin, one in the third; then core 1. As
    # lines and a dot per workload, thousands of these made every zoom of a 64-core file take seconds.
    frame = _schedule(
        (0, "pe", 0, 10), (0, "pe", 10, 20), (0, "pe", 25, 30), (0, "pe", 70, 80), (1, "pe", 90, 120)
    )
    frame["critical"] = True
    fig = timeline_figure(frame, "dependency")
    [busy] = [t for t in fig.data if t.name == "busy time"]
    path = "pe<br>critical path: "
    assert _texts(busy) == {
        "core 0": [path + "<b>L0</b> … <b>L2</b> (3 workloads)", "pe", path + "<b>L3</b>", "pe"],
        "core 1": ["pe", "pe", "pe", path + "<b>L4</b>"],
    }
    # Zoomed in (bars), every critical workload keeps its own segment of the rail.
    monkeypatch.setattr(timeline, "MAX_BARS", 100)
    rail = [t for t in timeline_figure(frame, "dependency").data if t.name == "critical path"][-1]
    assert rail.type == "scatter" and len(rail.x) == 3 * 5


def test_a_critical_path_hopping_cores_thousands_of_times_keeps_its_rail_not_its_hand_offs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timeline, "MAX_BARS", 2)
    monkeypatch.setattr(timeline, "MAX_HANDOFFS", 1)
    frame = _schedule((0, "pe", 0, 50), (1, "pe", 60, 100), (0, "pe", 110, 120))
    frame["critical"] = True
    fig = timeline_figure(frame, "dependency")
    assert [t for t in fig.data if t.name == "critical path"]
    assert not [t for t in fig.data if t.name == "critical path: core to core"]
    notes = " ".join(a.text for a in fig.layout.annotations)
    assert "the critical path (yellow) changes core 2 times: zoom in to follow it" in notes
