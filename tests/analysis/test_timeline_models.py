"""Timing models worked out by hand on the 2x2 sample, on a deadlocked file and on single cores."""

from __future__ import annotations

from typing import Any

import pandas as pd

from irtools.analysis import Analysis, analyze
from tests.analysis.builders import ROOT, analysis_of, chain_ir


def _row(a: Analysis, model: str, core: int, position: int) -> pd.Series:
    t = a.timeline
    rows = t[(t.model == model) & (t.core_id == core) & (t.position == position)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_sequential_runs_each_core_back_to_back(mesh: Analysis) -> None:
    relu = _row(mesh, "sequential", 2, 1)
    assert (relu.start, relu.end) == (52000, 60192)  # after Conv_1 (52000 cycles) on the same core
    # Sequential makespan = the largest per-core sum of time (core 2: 52000 + 8192).
    assert (
        mesh.makespan("sequential")
        == 60192
        == mesh.timeline.groupby(["model", "core_id"])["time"].sum().max()
    )


def test_dependency_start_is_the_latest_producer_end(mesh: Analysis) -> None:
    conv0_core0, conv0_core1 = _row(mesh, "dependency", 0, 0), _row(mesh, "dependency", 1, 0)
    conv1 = _row(mesh, "dependency", 2, 0)
    assert (conv0_core0.end, conv0_core1.end) == (41000, 42000)
    # Conv_1 reads transfers 10 (core 0) and 11 (core 1): it waits for the later one.
    assert conv1.start == 42000 and conv1.wait == 42000
    relu = _row(mesh, "dependency", 2, 1)
    assert relu.start == conv1.end == 94000
    assert mesh.makespan("dependency") == 102192


def test_critical_path_is_the_chain_that_ends_last(mesh: Analysis) -> None:
    assert mesh.critical_path("dependency") == [(1, 0), (2, 0), (2, 1)]
    assert mesh.critical_path("sequential") == [(2, 0), (2, 1)]
    dep = mesh.timeline[mesh.timeline.model == "dependency"]
    assert set(dep[dep.critical].core_id) == {1, 2}


def test_core_utilization(mesh: Analysis) -> None:
    cores = mesh.cores.set_index(["model", "core_id"])
    core0 = cores.loc[("dependency", 0)]
    assert (core0.busy, core0.idle, core0.last_end) == (41000, 102192 - 41000, 41000)
    assert core0.utilization == 41000 / 102192
    assert cores.loc[("sequential", 2)].utilization == 1.0


def test_deadlocked_workloads_have_no_start() -> None:
    a = analyze(ROOT / "sample_ir" / "invalid" / "GIR502-deadlock.json")
    dep = a.timeline[a.timeline.model == "dependency"]
    # Core 0 waits on Pool_9 (core 2), which runs after Conv_1, which waits on core 0: nothing of
    # the cycle can start, nor anything behind it.
    assert dep.start.isna().sum() >= 3
    assert a.makespan("dependency") is None
    assert a.makespan("sequential") is not None
    assert dep[dep.start.isna()].end.isna().all()
    assert a.cores[a.cores.model == "dependency"].idle.isna().all()


def test_single_core_models_agree(minimal_ir: dict[str, Any]) -> None:
    a = analysis_of(chain_ir(minimal_ir, [[], [], []], times=[5, 7, 11]))
    for model in ("sequential", "dependency"):
        rows = a.timeline[a.timeline.model == model]
        assert rows.start.tolist() == [0, 5, 12]
        assert rows.end.tolist() == [5, 12, 23]
    assert a.critical_path("dependency") == [(0, 0), (0, 1), (0, 2)]
