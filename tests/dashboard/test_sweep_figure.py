"""The sweep page's scatter on the real gemini-sweep folder (issue 29: 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards.sweep_figure import axis_title, sweep_scatter
from irtools.sweep.directory import directory_table

SWEEP = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "gemini-sweep"
pytestmark = pytest.mark.skipif(not SWEEP.is_dir(), reason="../shared/fixtures not present")


@pytest.fixture(scope="module")
def table():  # type: ignore[no-untyped-def]
    return directory_table(SWEEP)


def test_axes_say_their_units(table) -> None:  # type: ignore[no-untyped-def]
    fig = sweep_scatter(table, "peak_l2_max", "makespan_dependency", "l2_kb")
    assert fig.layout.xaxis.title.text == "peak_l2_max (bytes)"
    assert fig.layout.yaxis.title.text == "makespan_dependency (cycles)"
    assert axis_title("l2_kb") == "l2_kb (KB)"


def test_runs_sharing_one_ir_are_marked_on_their_shared_dot(table) -> None:  # type: ignore[no-untyped-def]
    fig = sweep_scatter(table, "peak_l2_max", "makespan_dependency", "l2_kb")
    # The NoC-16 and NoC-64 runs wrote byte-identical IRs: 10 runs on 5 dots, each dot marked x2.
    shared = next(t for t in fig.data if t.name == "runs on one dot")
    assert list(shared.text) == ["x2"] * 5
    assert "5 dots show 10 runs" in fig.layout.title.text


def test_the_l2_size_in_the_name_gives_the_fraction_and_overfull_runs_are_flagged(table) -> None:  # type: ignore[no-untyped-def]
    ran = table[table["status"] == "ok"]
    # Raw files record no L2 size; `_ul256` in the name does: every analyzed run has its fraction.
    assert ran["peak_l2_fraction"].notna().all()
    fraction = ran["peak_l2_max"] / (ran["l2_kb"] * 1024)
    assert (ran["peak_l2_fraction"] - fraction).abs().max() < 1e-12
    over = ran[ran["peak_l2_fraction"] > 1]
    fig = sweep_scatter(table, "peak_l2_max", "makespan_dependency", "l2_kb")
    flagged = [t for t in fig.data if t.name == "needs more L2 than the run has"]
    assert len(over) > 0 and len(flagged) == 1 and len(flagged[0].x) == len(over)
