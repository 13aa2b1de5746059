"""A sweep row is made from the file read as `irtools analyze` reads it (each core's snapshots dropped once
its tables are built and its rules run), and equals the row of the file read whole, findings included."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from irtools.options import RunOptions
from irtools.sweep import row as sweep_row
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    p
    for p in [*FIXTURES.rglob("*.json"), *(ROOT / "sample_ir").rglob("*.json")]
    if not p.name.endswith(".expected.json")
)


def _same(value: Any, other: Any) -> bool:
    return (
        isinstance(value, float) and isinstance(other, float) and math.isnan(value) and math.isnan(other)
    ) or (value == other)


SIZED = RunOptions(l2_size=1 << 20, wl0_size=1 << 16)
"""Every rule that needs a size runs too."""
NOC = RunOptions(noc_bw=8, dram_bw=1024000)
"""The noc timing model and Gemini's energy: the tensors are kept for the layers' batch groups."""


@pytest.mark.parametrize(
    ("path", "options"),
    [(p, SIZED) for p in FILES] + [(p, NOC) for p in FILES if "gemini-" in str(p)],
    ids=lambda v: (
        str(v.relative_to(v.parents[1])) if isinstance(v, Path) else ("noc" if v.noc_bw else "sized")
    ),
)
def test_a_row_read_as_analyze_reads_it_equals_the_whole_files(
    path: Path, options: RunOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    streamed = sweep_row.summarize_with_findings(str(path), options)
    monkeypatch.setattr(sweep_row, "_streamed", lambda *_, **__: None)
    whole = sweep_row.summarize_with_findings(str(path), options)
    assert streamed[1] == whole[1]
    assert streamed[0].keys() == whole[0].keys()
    differ = {k: (streamed[0][k], whole[0][k]) for k in whole[0] if not _same(streamed[0][k], whole[0][k])}
    assert not differ


def test_a_large_raw_file_is_read_as_analyze_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # The streamed reading is the one taken (the fixtures above would pass with it never taken).
    taken: list[bool] = []
    streamed = sweep_row._streamed

    def recorded(path: str, options: RunOptions, for_views: bool = False) -> Any:
        result = streamed(path, options, for_views)
        taken.append(result is not None and result[0].snapshots_dropped)
        return result

    monkeypatch.setattr(sweep_row, "_streamed", recorded)
    row, _ = sweep_row.summarize_with_findings(
        str(FIXTURES / "gemini-raw" / "resnet_4x4_b4_ff1_ss2_rr50_ir.json")
    )
    assert taken == [True] and row["status"] == "ok"


@pytest.mark.parametrize("path", [p for p in FILES if "gemini-" in str(p)], ids=lambda p: p.name)
def test_a_row_timed_for_the_manifests_noc_runs_equals_the_whole_files(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The runs route the tensors: they stay, the snapshots go.
    streamed = sweep_row.summarize_with_findings(str(path), RunOptions(dram_bw=1024000), run_noc_bws=(8, 32))
    monkeypatch.setattr(sweep_row, "_streamed", lambda *_, **__: None)
    whole = sweep_row.summarize_with_findings(str(path), RunOptions(dram_bw=1024000), run_noc_bws=(8, 32))
    assert streamed[1] == whole[1]
    assert {k: v for k, v in streamed[0].items() if not _same(v, whole[0][k])} == {}


def test_a_file_with_a_measured_trace_is_read_as_analyze_reads_it_its_tiles_kept() -> None:
    # The trace is matched to the tiles (for_views keeps them): the row is made without reading the file whole.
    path = FIXTURES / "gemini" / "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sweep_row, "load_ir", _never)
        row, _ = sweep_row.summarize_with_findings(str(path))
    assert row["trace"] and row["trace_errors"] == 0 and row["measured_makespan"]


def _never(*_: Any, **__: Any) -> Any:
    raise AssertionError("the file was read whole")
