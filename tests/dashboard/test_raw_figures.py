"""Figures for raw-dialect files: the L2 block map, and core labels by mesh position."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dashboards.blocks import blocks_figure
from dashboards.timeline import core_labels
from dashboards.views import core_maps
from irtools.analysis import analyze
from irtools.analysis.analysis import AnalysisOptions

ROOT = Path(__file__).resolve().parents[2]
RAW_DIR = ROOT.parent / "shared" / "fixtures" / "gemini-raw"


@pytest.mark.skipif(not RAW_DIR.is_dir(), reason="../shared/fixtures not present")
def test_block_map_stacks_types_and_marks_snapshots_over_l2() -> None:
    # resnet 2x2 at 512 KB of L2 (the scheduler's input line): core 1 holds up to 716 KiB.
    a = analyze(RAW_DIR / "resnet_2x2_b1_ir.json", AnalysisOptions(l2_size=512 * 1024))
    fig, wl0 = core_maps(a, 1)
    areas = [t for t in fig.data if t.stackgroup == "held"]
    # 72 snapshots on the cycles axis (the default, as the timeline), and the last one held until it ends.
    assert [t.name for t in areas] == ["ifmap", "weight", "ofmap"] and len(areas[0].x) == 73
    assert areas[0].x[-1] == a.timeline.query("model == 'dependency' and core_id == 1")["end"].max()
    assert fig.layout.xaxis.title.text == "cycles (dependency model, as the timeline)"
    # Ticks as the timeline above it writes them (1.2G), not Plotly's default (1.2B).
    assert fig.layout.xaxis.tickformat == "~s"
    by_position, _ = core_maps(a, 1, cycles=False)
    assert (
        len(by_position.data[0].x) == 72
        and by_position.layout.xaxis.title.text == "workload position on the core"
    )
    over = [t for t in fig.data if (t.name or "").startswith("over L2")]
    blocks = a.l2_blocks[a.l2_blocks.core_id == 1]
    assert len(over) == 1 and len(over[0].x) == int((blocks.held_kib > 512).sum()) > 0
    assert fig.layout.title.text == "L2 KiB held on core 1 (0,0) (blocks; no addresses): peak 716 of 512"
    # The KiB axis labelled in binary units, as the counter track above it writes bytes (peak 716 KiB).
    assert list(fig.layout.yaxis.ticktext) == ["0 B", "200 KiB", "400 KiB", "600 KiB"]
    assert list(fig.layout.yaxis.tickvals) == [0, 200, 400, 600]  # the axis counts KiB
    assert wl0 is None  # the dialect has no WL0: no panel rather than an empty one saying so


def test_block_map_resets_to_the_whole_schedule_as_the_timeline_does() -> None:
    # Core 1 is done at cycle 300 of a 10,000-cycle schedule (small_raw's core 1 held L2 for 3% of it).
    blocks = pd.DataFrame(
        {
            "core_id": [1, 1],
            "position": [0, 1],
            "workload_id": [0, 1],
            "layer_name": ["a", "b"],
            **{k: [1, 2] for k in ("ifmap_kib", "weight_kib", "ofmap_kib")},
            "held_kib": [3, 6],
            "start": [0.0, 100.0],
            "end": [100.0, 300.0],
        }
    )
    fig = blocks_figure(
        blocks, core_id=1, core_label="core 1", capacity_kib=None, cycles="dependency", x_extent=10_000
    )
    # A reset autoranges the axis over the traces: they must reach the makespan, not the core's last
    # snapshot, or the panel no longer lines up with the timeline above it.
    assert max(max(t.x) for t in fig.data) == 10_000 and list(fig.layout.xaxis.range) == [0, 10_000]


def test_block_map_escapes_layer_names() -> None:
    blocks = pd.DataFrame(
        {
            "core_id": [1],
            "position": [0],
            "workload_id": [0],
            "layer_name": ["<img src=x onerror=alert(1)>"],
            **{k: [1] for k in ("ifmap_kib", "weight_kib", "ofmap_kib")},
            "held_kib": [3],
        }
    )
    fig = blocks_figure(blocks, core_id=1, core_label="core 1 (0,0)", capacity_kib=None)
    assert "<img" not in str(fig.data[0].customdata[0]) and "&lt;img" in str(fig.data[0].customdata[0])


def test_core_labels_show_positions_only_for_mesh_ids() -> None:
    def frame(ids: list[int], xs: list[int], ys: list[int]) -> pd.DataFrame:
        return pd.DataFrame(
            {"core_id": ids, "core_x": pd.array(xs, dtype="Int64"), "core_y": pd.array(ys, dtype="Int64")}
        )

    assert core_labels(frame([0, 1, 2, 3], [0, 1, 0, 1], [0, 0, 1, 1]))[3] == "core 3"
    assert core_labels(frame([1, 2, 5, 6], [0, 1, 0, 1], [0, 0, 1, 1]))[5] == "core 5 (0,1)"
    assert core_labels(frame([], [], [])) == {}  # an IR with no workloads
