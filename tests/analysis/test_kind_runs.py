"""The runs of links without pandas groupbys equal the groupby path's, run for run and in order.

tree_runs, dram_read_runs and dram_write_runs replaced `tree_runs_by_groupby` over a row per
(transfer, DRAM port); the noc_links tables, the step loads and the mesh view read their runs in order,
so equal means the same arrays, not the same set of links.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irtools.analysis import analyze
from irtools.analysis.noc import KINDS, noc_runs
from irtools.analysis.routing import (
    Runs,
    dram_read_runs,
    dram_write_runs,
    from_dram,
    to_dram,
    tree_runs,
    tree_runs_by_groupby,
)
from irtools.cli.main import main
from irtools.reference import reference_core
from tests.analysis.builders import MESH
from tests.conftest import FIXTURES

REAL = sorted((FIXTURES / "gemini-raw").glob("*.json")) + sorted(
    (FIXTURES / "gemini-noc").glob("*_b1_*.json")
)
MESHES = [(1, 1), (2, 1), (1, 2), (2, 3), (4, 4), (8, 8)]
"""Mesh shapes: a single row has no DRAM port for its lower channels, a single core none at all."""


def assert_same_runs(fast: Runs, reference: Runs) -> None:
    """The same runs, in the same (narrowest) integers."""
    for field in dataclasses.fields(Runs):
        got, want = getattr(fast, field.name), getattr(reference, field.name)
        assert got.dtype == want.dtype, field.name
        np.testing.assert_array_equal(got, want, err_msg=field.name)


def _reads(rng: random.Random, xlen: int, ylen: int) -> pd.DataFrame:
    """DRAM reads: transfers (repeated, out of order) to random cores, one size per transfer."""
    sizes = {t: rng.randrange(0, 5000) for t in range(rng.randrange(1, 12))}
    rows = []
    for _ in range(rng.randrange(1, 40)):
        transfer = rng.choice(list(sizes))
        rows.append((transfer, rng.randrange(xlen), rng.randrange(ylen), sizes[transfer]))
    return pd.DataFrame(rows, columns=["transfer", "dst_x", "dst_y", "bytes"])


@pytest.mark.parametrize("seed", range(40))
def test_random_trees(seed: int) -> None:
    """Core to core: trees share transfer ids and sources, destinations repeat and include the source."""
    rng = random.Random(seed)
    xlen, ylen = rng.choice(MESHES)
    rows = []
    for _ in range(rng.randrange(1, 60)):
        rows.append(
            (
                rng.randrange(6),
                rng.randrange(-1, xlen + 1),
                rng.randrange(ylen),
                rng.randrange(-1, xlen + 1),
                rng.randrange(ylen),
                rng.randrange(1000),
            )
        )
    transfers = pd.DataFrame(rows, columns=["transfer", "src_x", "src_y", "dst_x", "dst_y", "bytes"])
    assert_same_runs(tree_runs(transfers), tree_runs_by_groupby(transfers))
    # An explicit tree number splits rows of one (transfer, source) into several trees.
    split = transfers.assign(tree=[rng.randrange(3) for _ in rows])
    assert_same_runs(tree_runs(split), tree_runs_by_groupby(split))


@pytest.mark.parametrize("seed", range(40))
def test_random_dram_traffic(seed: int) -> None:
    rng = random.Random(seed)
    xlen, ylen = rng.choice(MESHES)
    reads = _reads(rng, xlen, ylen)
    assert_same_runs(dram_read_runs(reads, xlen, ylen), tree_runs_by_groupby(from_dram(reads, xlen, ylen)))
    writes = reads.rename(columns={"dst_x": "src_x", "dst_y": "src_y"})
    assert_same_runs(dram_write_runs(writes, xlen, ylen), tree_runs_by_groupby(to_dram(writes, xlen, ylen)))


def test_no_rows_give_no_runs() -> None:
    reads = pd.DataFrame({c: pd.Series(dtype="int64") for c in ["transfer", "dst_x", "dst_y", "bytes"]})
    writes = reads.rename(columns={"dst_x": "src_x", "dst_y": "src_y"})
    for runs in (dram_read_runs(reads, 4, 4), dram_write_runs(writes, 4, 4), tree_runs(reads.iloc[:0])):
        assert len(runs.count) == 0


def _both_cores(path: Path) -> None:
    index = analyze(path).index
    fast = noc_runs(index)
    with reference_core():
        reference = noc_runs(index)
    assert [r.kind for r in fast] == [r.kind for r in reference]
    assert {r.kind for r in fast} <= set(KINDS)
    for got, want in zip(fast, reference, strict=True):
        assert_same_runs(got.runs, want.runs)
        np.testing.assert_array_equal(got.step, want.step)


@pytest.mark.skipif(not REAL, reason="../shared/fixtures not present")
@pytest.mark.parametrize("path", REAL, ids=[p.name for p in REAL])
def test_real_fixtures(path: Path) -> None:
    """Gemini's raw files: multicast trees, DRAM reads from every port, writes to every port."""
    _both_cores(path)


def test_sample() -> None:
    _both_cores(MESH)


def test_synth_8x8(tmp_path: Path) -> None:
    """Transfers that feed several steps: one tree per (transfer, step), DRAM fanned over 16 ports."""
    out = tmp_path / "raw.json"
    argv = ["synth", "-o", str(out), "--mesh", "8x8", "--layers", "12", "--batch", "2", "--dialect", "raw"]
    assert main(argv) == 0
    _both_cores(out)
