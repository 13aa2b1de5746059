"""Snapshot and lifetime cycles, the bottleneck core, and when both timing models agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from irtools.analysis import analyze
from irtools.analysis.balance import balance
from irtools.analysis.spans import with_cycles
from irtools.analysis.summary import models_agree

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"
DEADLOCK = ROOT / "sample_ir" / "invalid" / "GIR502-deadlock.json"


def test_a_lifetime_spans_its_first_workloads_start_to_its_last_workloads_end() -> None:
    a = analyze(MESH)
    core2 = with_cycles(a.tensors[a.tensors["core_id"] == 2], a.timeline, "dependency")
    # Core 2 runs Conv_1 from 42000 (it waits for core 1's Conv_0) to 94000, then Relu_2 to
    # 102192; the ofmap-bound tensor lives in both snapshots.
    spans = sorted(zip(core2["first_position"], core2["last_position"], core2["start"], core2["end"]))
    assert spans[-2:] == [(0, 1, 42000.0, 102192.0), (1, 1, 94000.0, 102192.0)]
    sequential = with_cycles(a.l2_occupancy, a.timeline, "sequential", "position", "position")
    assert sequential[sequential["core_id"] == 2][["start", "end"]].values.tolist() == [
        [0.0, 52000.0],
        [52000.0, 60192.0],
    ]


def test_workloads_that_cannot_be_scheduled_have_no_cycles() -> None:
    a = analyze(DEADLOCK)
    snapshots = with_cycles(a.l2_occupancy, a.timeline, "dependency", "position", "position")
    placed = snapshots[~np.isnan(snapshots["start"])]
    assert placed["core_id"].tolist() == [1]  # only core 1 runs; the others wait on the cycle


def test_bottleneck_is_the_busiest_core_and_models_agree_only_without_waits() -> None:
    a = analyze(MESH)
    spread = balance(a.cores)
    assert (
        spread is not None and spread.bottleneck == 2
    )  # 52000 + 8192 busy cycles, 28% over the median 47000
    assert spread.text("core 2") == "core 2 is the bottleneck: busy 28% more than the median core"
    assert not models_agree(a)  # core 2 waits for core 1 in the dependency model
    assert a.wait_cycles == []
    assert analyze(DEADLOCK).wait_cycles == [[(0, 0), (2, 0), (2, 1), (2, 2)]]
