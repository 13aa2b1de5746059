"""noc_transfers from the transfer columns gives the reference loop's rows, in its order, on every file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from irtools.analysis.noc import noc_links, noc_transfers
from irtools.cli.main import main
from irtools.errors import AnalysisError
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.loading.mesh import mesh_problem
from irtools.reference import reference_core
from tests.conftest import FIXTURES, ROOT

SAMPLES = sorted(p for p in (ROOT / "sample_ir").rglob("*.json") if not p.name.endswith(".expected.json"))
REAL = sorted((FIXTURES / "gemini-raw").glob("*.json")) + sorted((FIXTURES / "gemini-alloc").glob("*.json"))


def _same(path: Path) -> None:
    loaded = load_ir(path)
    if loaded.ir is None:
        pytest.skip("not an IR")
    index = IRIndex(loaded)
    if mesh_problem(list(index.cores), index.numbering, index.ir.xlen, index.ir.ylen) is not None:
        # Analysis refuses it (GIR506) before any NoC table: a 2x1000 mesh took 13 s to lay out here.
        pytest.skip("a mesh no analysis lays out (GIR506)")
    frames = {}
    links = {}
    for reference in (False, True):
        with reference_core(reference):
            index = IRIndex(loaded)
            frames[reference] = noc_transfers(index)
            links[reference] = noc_links(index)
    for kind, frame in frames[False].items():
        pd.testing.assert_frame_equal(frame, frames[True][kind], check_exact=True, obj=kind)
    pd.testing.assert_frame_equal(links[False], links[True], check_exact=True)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.parent.name + "/" + p.name)
def test_samples(path: Path) -> None:
    """Every sample, the invalid ones too: dangling destinations, cores off the mesh, left-out entries."""
    try:
        _same(path)
    except AnalysisError:
        pytest.skip("not an IR")


@pytest.mark.skipif(not REAL, reason="../shared/fixtures not present")
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_fixtures(path: Path) -> None:
    _same(path)


@pytest.mark.parametrize("dialect", ["documented", "raw", "alloc"])
def test_synth_8x8(tmp_path: Path, dialect: str) -> None:
    out = tmp_path / f"{dialect}.json"
    argv = ["synth", "-o", str(out), "--mesh", "8x8", "--layers", "12", "--batch", "2", "--dialect", dialect]
    assert main(argv) == 0
    _same(out)
