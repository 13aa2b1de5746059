"""`irtools analyze` builds the snapshot tables a batch of cores at a time as it reads the file and drops
the snapshots, and the tensors too when it routes no NoC traffic (irtools.analysis.snapshots): every
table and the summary stay exactly the whole file's, on every fixture and sample, with and without an L2
size, and on fuzzed files of every dialect; where
the cores cannot tell (L2 addresses and no L2 size) or a batch's tables raise, the file is analyzed
whole, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

from irtools.analysis import analyze, snapshots, traffic
from irtools.analysis.analysis import Analysis
from irtools.analysis.summary import summarize
from irtools.cli.main import main
from irtools.errors import AnalysisError
from irtools.loading.discover import discover
from irtools.loading.dropping import DROPPED, FieldDropped
from irtools.options import RunOptions
from irtools.reference import reference_core
from tests.budget import examples
from tests.conftest import ROOT
from tests.rules.test_screens import fuzzed_files

FIXTURES = ROOT.parent / "shared" / "fixtures"
FILES = discover([str(FIXTURES), str(ROOT / "sample_ir")], False)
RAW = FIXTURES / "gemini-raw" / "resnet_4x4_b4_ff1_ss2_rr50_ir.json"
ALLOC = FIXTURES / "gemini-alloc" / "resnet_4x4_b4_ff1_ss2_rr50_alloc.json"
DOCUMENTED = FIXTURES / "gemini" / "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json"
SIZED = RunOptions(l2_size=1 << 30, wl0_size=1 << 20)


def _analyses(path: str | Path, options: RunOptions | None) -> tuple[Analysis, Analysis] | None:
    """The file analyzed whole and streamed; None when it cannot be analyzed (either way, the same error)."""
    try:
        whole = analyze(path, options)
    except AnalysisError as exc:
        with pytest.raises(AnalysisError) as streamed:
            analyze(path, options, keep_snapshots=False)
        assert str(streamed.value) == str(exc)
        return None
    return whole, analyze(path, options, keep_snapshots=False)


def _assert_same(whole: Analysis, streamed: Analysis) -> None:
    for name, table in whole.tables().items():
        pd.testing.assert_frame_equal(streamed.table(name), table, obj=f"{whole.path}: {name}")
    assert summarize(streamed) == summarize(whole), whole.path


def _dropped(analysis: Analysis) -> bool:
    return any(
        ref.workload.buffer is DROPPED for ref in analysis.index.rows if hasattr(ref.workload, "buffer")
    )


@pytest.mark.parametrize(
    ("options", "batch_rows"),
    [(None, snapshots.BATCH_ROWS), (None, 256), (SIZED, 256)],
    ids=["defaults", "defaults-small-batches", "l2-size-small-batches"],
)
def test_every_fixture_and_sample_gives_the_whole_files_tables(
    options: RunOptions | None, batch_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small batches cut a real file into several: an allocated one's occupancy is then finished against
    the whole file's extent."""
    monkeypatch.setattr(snapshots, "BATCH_ROWS", batch_rows)
    for path in FILES:
        pair = _analyses(path, options)
        if pair is not None:
            _assert_same(*pair)


def test_real_files_are_streamed_and_a_ring_file_without_an_l2_size_kept_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Batches of a few cores (so a real 16-core file makes several). An allocated file without an L2 size
    is measured against its extent over every core: its batches' occupancy is finished once all are read.
    A file with ring regions and no L2 size keeps its snapshots until the whole file's tables are built."""
    monkeypatch.setattr(snapshots, "BATCH_ROWS", 300)
    ring = json.loads(DOCUMENTED.read_text())
    del ring["buffersize"]
    unsized = tmp_path / "unsized.json"
    unsized.write_text(json.dumps(ring))
    cases = [(RAW, None, True), (ALLOC, None, True), (ALLOC, SIZED, True), (DOCUMENTED, None, True)]
    for path, options, streamed in [*cases, (unsized, None, False)]:
        whole, analysis = _analyses(path, options) or pytest.fail(str(path))
        assert _dropped(analysis) is streamed, (path, options)
        _assert_same(whole, analysis)
    with pytest.raises(FieldDropped):  # what the tables no longer need is gone, not silently rebuilt
        analyze(RAW, keep_snapshots=False).index.rows[0].workload.buffer[0]


def test_a_batch_whose_tables_raise_sends_the_file_to_be_analyzed_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first batches dropped, a later one raises: the file is read again and its tables are the whole
    file's (an error would be the whole file's too)."""
    monkeypatch.setattr(snapshots, "BATCH_ROWS", 300)
    built = snapshots.snapshot_tables
    calls = []

    def failing_third(*args: object) -> dict[str, pd.DataFrame]:
        calls.append(1)
        if len(calls) == 3:
            raise ValueError("a batch the columns cannot take")
        return built(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(snapshots, "snapshot_tables", failing_third)
    analysis = analyze(RAW, keep_snapshots=False)
    monkeypatch.setattr(snapshots, "snapshot_tables", built)
    assert len(calls) == 3 and not _dropped(analysis)
    _assert_same(analyze(RAW), analysis)


@pytest.mark.bounded  # generated input: under the memory bound of tests/budget.py
@pytest.mark.parametrize("options", [None, SIZED], ids=["defaults", "l2-size"])
@given(data=fuzzed_files())
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_fuzzed_file_gives_the_whole_files_tables(
    options: RunOptions | None, data: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("snapshots") / "fuzzed.json"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snapshots, "BATCH_ROWS", 2)
        pair = _analyses(path, options)
    if pair is not None:
        _assert_same(*pair)


def test_ids_the_columns_cannot_combine_keep_the_tensors(tmp_path: Path) -> None:
    """A workload id near 2**63 (a fuzzed file's): the wait graph's edges cannot be keyed from the columns,
    so the timing models walk the tensors; the load keeps them (it read the file whole) instead of the
    tables raising FieldDropped."""
    document = json.loads(RAW.read_text())
    document["1"][-1]["workload_id"] = 6796115053247117864
    path = tmp_path / "huge_id.json"
    path.write_text(json.dumps(document))
    whole, streamed = _analyses(path, None) or pytest.fail("not analyzed")
    assert not _dropped(streamed)
    _assert_same(whole, streamed)


def test_a_run_routing_no_noc_traffic_drops_the_tensors_too() -> None:
    """The other tables read them through the transfer columns and the ofmaps' sizes; a run that routes the
    NoC traffic (the noc model, noc_links) reads the tensors themselves, and keeps them."""
    dropped = analyze(RAW, keep_snapshots=False)
    with pytest.raises(FieldDropped):
        dropped.index.rows[0].workload.ofmap[0]
    for routing in (RunOptions(noc_bw=8), RunOptions(noc_links=True)):
        routed = analyze(RAW, routing, keep_snapshots=False)
        assert routed.index.rows[0].workload.ofmap[0].transfer_id >= 0
        _assert_same(analyze(RAW, routing), routed)
        assert len(routed.table("noc_links")) > 0


def test_a_table_reading_a_dropped_field_sends_the_cli_to_analyze_the_file_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table that still reads the tensors (here the DRAM writes' sizes, read from the ofmaps) raises
    FieldDropped on the streamed load: `irtools analyze` says so, reads the file again, whole, and writes the
    same tables."""
    assert main(["analyze", str(RAW), "--out", str(tmp_path / "streamed")]) == 0
    assert "reading it again whole" not in capsys.readouterr().err
    monkeypatch.setattr(traffic, "write_sizes", traffic._write_sizes_reference)
    with pytest.raises(FieldDropped):
        analyze(RAW, keep_snapshots=False).table("dram_transfers")
    assert main(["analyze", str(RAW), "--out", str(tmp_path / "whole")]) == 0
    said = (
        f"irtools analyze: {RAW}: a table needs what was dropped as the file was read: reading it again whole"
    )
    assert said in capsys.readouterr().err.splitlines()
    for written in (tmp_path / "streamed").iterdir():
        assert (tmp_path / "whole" / written.name).read_bytes() == written.read_bytes(), written.name


@pytest.mark.bounded
@given(data=fuzzed_files())
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_dram_writes_sizes_from_the_columns_are_the_ofmaps(data: bytes) -> None:
    """Per DRAM write, the first ofmap of its producer with its transfer id, whatever the fuzzer made of
    the ids (repeated, negative, missing producers)."""
    try:
        tables = []
        for reference in (False, True):
            with reference_core(reference):
                tables.append(analyze(data).table("dram_transfers"))
    except AnalysisError:
        return
    pd.testing.assert_frame_equal(*tables)


def _entries(analysis: Analysis) -> pd.DataFrame:
    """The snapshots' entries in core and program order (a file's batches come in the order its cores are
    written; the rows of one snapshot keep theirs)."""
    entries = analysis.l2_entries
    return entries.sort_values(["core_id", "position"], kind="stable").reset_index(drop=True)


def test_the_dashboards_load_keeps_what_its_views_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """`for_views` (the dashboard's load): the snapshots and the tensors dropped, the snapshots' entries kept
    for live_at_peak and the transfer columns for the rest: on every fixture and sample, the tables, the
    entries, every core's peak buffers, the mesh's routing input and the users of transfers are the whole
    file's (read object by object, by the reference core)."""
    monkeypatch.setattr(snapshots, "BATCH_ROWS", 256)
    for path in FILES:
        try:
            whole = analyze(path)
        except AnalysisError:
            continue
        viewed = analyze(path, keep_snapshots=False, for_views=True)
        _assert_same(whole, viewed)
        pd.testing.assert_frame_equal(_entries(viewed), _entries(whole), obj=str(path))
        for core in whole.index.cores:
            peak, seen = whole.live_at_peak(core), viewed.live_at_peak(core)
            assert (peak is None) == (seen is None), (path, core)
            if peak is not None and seen is not None:
                assert (seen.position, seen.held_bytes) == (peak.position, peak.held_bytes), (path, core)
                pd.testing.assert_frame_equal(seen.buffers, peak.buffers)
        with reference_core():
            routed = whole.noc_transfers
            tids = sorted({int(t) for frame in routed.values() for t in frame["transfer"]})[::7] + [-1, 2**62]
            users = {tid: whole.transfer_users(tid) for tid in tids}
        for kind, frame in routed.items():
            pd.testing.assert_frame_equal(viewed.noc_transfers[kind], frame, obj=f"{path}: {kind}")
        assert {tid: viewed.transfer_users(tid) for tid in tids} == users, path
    viewed = analyze(RAW, keep_snapshots=False, for_views=True)
    assert viewed.snapshots_dropped and _dropped(viewed)
    assert all(ref.workload.ofmap is DROPPED for ref in viewed.index.rows)  # routed from the columns
    pd.testing.assert_frame_equal(viewed.noc_link_table, analyze(RAW).noc_link_table)
    assert analyze(RAW, keep_snapshots=False).snapshots_dropped and not analyze(RAW).snapshots_dropped
