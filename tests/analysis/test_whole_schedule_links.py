"""The noc_links tables from the routed runs equal the timed rows' sums: the whole schedule's, and a window's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtools.analysis import analyze
from irtools.analysis.counters import link_capacity
from irtools.analysis.link_load import link_sums, links_frame, noc_links_table
from irtools.analysis.noc import KindRuns
from irtools.analysis.routing import Runs
from irtools.cli.main import main
from irtools.gemini import GEMINI_FREQUENCY
from irtools.options import RunOptions
from tests.analysis.builders import MESH
from tests.conftest import FIXTURES

REAL = sorted((FIXTURES / "gemini-raw").glob("*.json")) + sorted(
    (FIXTURES / "gemini-noc").glob("*_b1_*.json")
)


def _both_ways(path: Path, noc_bw: int | None) -> None:
    a = analyze(path, RunOptions(noc_bw=noc_bw))
    for model in a.models:
        fast = a.link_table(model)
        loads = a.link_loads(model)
        reference = noc_links_table(loads, noc_bw, GEMINI_FREQUENCY)
        pd.testing.assert_frame_equal(fast, reference, check_exact=True)
        # A window's table sums only the rows of the steps in it (window_rows), in the rows' order: to the bit.
        end = loads.span[1] if loads is not None else 0.0
        for window in ((0.0, end / 3), (0.41 * end, 0.43 * end), (end / 2, end), (end + 1, end + 2)):
            fast = a.link_table(model, window)
            pd.testing.assert_frame_equal(
                fast, noc_links_table(loads, noc_bw, GEMINI_FREQUENCY, window), check_exact=True
            )


@pytest.mark.parametrize("noc_bw", [None, 8])
def test_sample(noc_bw: int | None) -> None:
    _both_ways(MESH, noc_bw)


@pytest.mark.skipif(not REAL, reason="../shared/fixtures not present")
@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_fixtures(path: Path) -> None:
    """Gemini's own raw files (2x2 and 4x4, multicast trees, DRAM ports on both edges)."""
    _both_ways(path, 16)


@pytest.mark.parametrize("dialect", ["documented", "raw", "alloc"])
def test_synth_8x8(tmp_path: Path, dialect: str) -> None:
    """An 8x8 mesh with batches: transfers feeding several steps, DRAM reads fanned over 8 ports a side."""
    out = tmp_path / f"{dialect}.json"
    argv = ["synth", "-o", str(out), "--mesh", "8x8", "--layers", "12", "--batch", "2", "--dialect", dialect]
    assert main(argv) == 0
    _both_ways(out, 32)
    # What the analysis keeps while the file is open (the dashboard's mesh, windows and counters read it):
    # coordinates, directions and hop counts in one byte per run on this mesh, not eight.
    for routed in analyze(out, RunOptions()).noc_runs:
        assert {routed.runs.x.itemsize, routed.runs.y.itemsize, routed.runs.code.itemsize} == {1}
        assert routed.runs.count.itemsize == 1 and routed.step.itemsize <= 2


def _runs(
    transfer: list[int], x: list[int], y: list[int], code: list[int], count: list[int], size: list[int]
) -> Runs:
    return Runs(*(np.array(v, dtype=np.int64) for v in (transfer, x, y, code, count, size)))


def test_a_transfer_counts_once_on_a_link_two_of_its_trees_share() -> None:
    """Two trees of transfer 7 (two DRAM ports, say) overlap on links (1,0)->(2,0) and (2,0)->(3,0):
    both trees' bytes count there, the transfer once; transfer 8 on one of them is another transfer."""
    east = 0
    runs = _runs([7, 7, 8], [0, 1, 2], [0, 0, 0], [east, east, east], [3, 3, 1], [10, 5, 1])
    table = links_frame(
        link_sums([KindRuns("dram_read", runs, np.zeros(3, np.int64))]), None, GEMINI_FREQUENCY, (0, 100), 4
    )
    by_link = {(r.x, r.y, r.to_x): (r.bytes, r.dram_read_bytes, r.transfers) for r in table.itertuples()}
    assert by_link == {
        (0, 0, 1): (10, 10, 1),
        (1, 0, 2): (15, 15, 1),
        (2, 0, 3): (16, 16, 2),
        (3, 0, 4): (5, 5, 1),
    }


def test_runs_of_no_link_or_no_bytes_load_nothing() -> None:
    runs = _runs([1, 2], [0, 0], [0, 0], [0, 0], [0, 2], [5, 0])
    assert link_sums([KindRuns("core", runs, np.zeros(2, np.int64))]) is None
    assert links_frame(None, 8, GEMINI_FREQUENCY, (0, 10), 4).empty


@pytest.mark.skipif(not (FIXTURES / "gemini-noc").is_dir(), reason="../shared/fixtures not present")
@pytest.mark.parametrize("frequency", [GEMINI_FREQUENCY, 2.0])
def test_busy_share_is_in_ir_cycles_as_the_counter_track_has_it(frequency: float) -> None:
    """Gemini's NoC time is ceil(bytes / bandwidth) / frequency in the IR's unit, so a link moves
    bandwidth x frequency bytes per IR cycle (the counter track's capacity line): a link's busy share of
    the makespan is its bytes over that capacity, not over the bandwidth alone (1.3x too high before)."""
    path = FIXTURES / "gemini-noc" / "vgg_4x4_b1_ul512_ir.json"
    a = analyze(path, RunOptions(noc_bw=8, noc_frequency=frequency))
    for model in ("noc", "dependency"):
        makespan = a.timeline.loc[a.timeline["model"] == model, "end"].max()
        links = a.link_table(model)
        expected = links["bytes"] / link_capacity(8, frequency) / makespan
        np.testing.assert_allclose(links["busy_share"], expected, rtol=1e-12)
        assert (links["busy_cycles"] == (links["bytes"] / 8).round()).all()  # NoC cycles, as documented
