"""The whole schedule's noc_links table from the routed rows alone equals the timed table without a window."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from irtools.analysis import analyze
from irtools.analysis.link_load import noc_links_table
from irtools.cli.main import main
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
        reference = noc_links_table(a.link_loads(model), noc_bw)
        pd.testing.assert_frame_equal(fast, reference, check_exact=True)


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
