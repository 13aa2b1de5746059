"""`irtools analyze` writes each table as soon as it is built and lets it go (irtools.analysis.writing):
the files and the summary are exactly those of every table held at once, and no table is built twice."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from irtools.analysis import TABLES, analyze, write_tables
from irtools.analysis import analysis as analysis_module
from irtools.analysis.summary import summarize
from irtools.analysis.writing import AFTER_SUMMARY, BEFORE_SUMMARY, write_analysis
from irtools.options import RunOptions
from tests.conftest import ROOT

FIXTURES = ROOT.parent / "shared" / "fixtures"
RAW = FIXTURES / "gemini-raw" / "resnet_4x4_b4_ff1_ss2_rr50_ir.json"
ALLOC = FIXTURES / "gemini-alloc" / "resnet_4x4_b4_ff1_ss2_rr50_alloc.json"
DOCUMENTED = FIXTURES / "gemini" / "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json"
ROUTED = RunOptions(noc_bw=8)

BUILDERS = (
    "timeline_table",
    "cores_table",
    "core_transfers_table",
    "l2_part",
    "l2_blocks_table",
    "wl0_tables",
    "dram_transfers",
    "dram_traffic",
    "layers_table",
    "layer_cost_table",
    "schedules",
)
"""What `Analysis` calls to build its tables (irtools.analysis.analysis's names)."""


def test_every_table_is_written_once() -> None:
    order = BEFORE_SUMMARY + AFTER_SUMMARY
    assert sorted(order) == sorted(TABLES)


@pytest.mark.parametrize("path", [RAW, ALLOC, DOCUMENTED], ids=lambda p: p.parent.name)
@pytest.mark.parametrize("options", [RunOptions(), ROUTED], ids=["default", "noc-bw"])
def test_files_and_summary_as_with_every_table_held(
    path: Path, options: RunOptions, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = analyze(path, options)
    expected, expected_summary = held.tables(), summarize(held)

    calls: Counter[str] = Counter()
    for name in BUILDERS:
        monkeypatch.setattr(analysis_module, name, _counted(getattr(analysis_module, name), name, calls))
    streamed = analyze(path, options, keep_snapshots=False)
    written, summary = write_analysis(streamed, tmp_path)

    assert summary == expected_summary
    held_files = write_tables(expected, tmp_path / "held")
    assert sorted(p.name for p in written) == sorted(p.name for p in held_files)
    for path_held in held_files:
        assert (tmp_path / path_held.name).read_bytes() == path_held.read_bytes(), path_held.name
    # Each table let go once written is never built again (the order builds what a table reads first).
    assert all(count == 1 for count in calls.values()), calls


def _counted(function: Callable[..., Any], name: str, calls: Counter[str]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return function(*args, **kwargs)

    return counted


def test_a_forgotten_table_is_built_again_on_read() -> None:
    analysis = analyze(ALLOC)
    tensors, occupancy = analysis.tensors, analysis.l2_occupancy
    analysis.forget("tensors")
    analysis.forget("timeline")
    pd.testing.assert_frame_equal(analysis.l2_occupancy, occupancy)  # its part kept the others
    pd.testing.assert_frame_equal(analysis.tensors, tensors)
    assert not analysis.timeline.empty
    with pytest.raises(KeyError, match="unknown table"):
        analysis.forget("timelines")


@pytest.mark.parametrize("path", [RAW, ALLOC], ids=lambda p: p.parent.name)
def test_a_tables_parts_are_its_rows_in_order(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`table_parts` (the timeline a timing model at a time, any table a few rows at a time, each with
    its mesh positions) gives the table's rows, in order, and its dtypes."""
    monkeypatch.setattr(analysis_module, "PART_ROWS", 1000)
    held = analyze(path, ROUTED)
    parted = analyze(path, ROUTED)
    timeline = list(parted.table_parts("timeline"))
    assert len(timeline) >= 3 and "timeline" not in parted.__dict__  # a part per model; never whole
    for name in TABLES:
        parts = timeline if name == "timeline" else list(parted.table_parts(name))
        joined = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0].reset_index(drop=True)
        pd.testing.assert_frame_equal(joined, held.table(name), obj=name)


def test_parquet_tables_are_the_tables(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    held = analyze(ALLOC)
    expected = held.tables()
    written, _ = write_analysis(analyze(ALLOC, keep_snapshots=False), tmp_path, "parquet")
    assert sorted(p.stem for p in written) == sorted(expected)
    for name, table in expected.items():
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / f"{name}.parquet"), table, obj=name)
