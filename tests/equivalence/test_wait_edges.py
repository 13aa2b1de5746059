"""The wait graph from the transfer columns has exactly the reference graph's edges (`wait_graph`), on
every sample, every real fixture and synth IRs of every dialect: the timing models read them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irtools.loading.graph import wait_graph
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.loading.waits import wait_edges
from irtools.synth import SynthOptions, synthesize
from irtools.synth.alloc import to_alloc
from irtools.synth.raw import to_raw
from tests.conftest import FIXTURES, ROOT

SAMPLES = sorted(p for p in (ROOT / "sample_ir").rglob("*.json") if not p.name.endswith(".expected.json"))
REAL = sorted(FIXTURES.rglob("*.json")) if FIXTURES.is_dir() else []


def _same_edges(index: IRIndex) -> None:
    _, lists = wait_graph(index)
    reference = {(a, b) for a, targets in enumerate(lists) for b in targets}
    edges = wait_edges(index)
    assert edges is not None
    assert set(zip(*(e.tolist() for e in edges), strict=True)) == reference


@pytest.mark.parametrize("path", SAMPLES + REAL, ids=lambda p: p.name)
def test_files(path: Path) -> None:
    loaded = load_ir(path)
    if loaded.ir is None:
        pytest.skip("not an IR the index can read")
    _same_edges(IRIndex(loaded))


@pytest.mark.parametrize("dialect", ["documented", "raw", "alloc"])
@pytest.mark.parametrize("seed", range(4))
def test_synth(dialect: str, seed: int) -> None:
    base = synthesize(SynthOptions(xlen=3, ylen=2, layers=8, batch=2, seed=seed)).document
    doc = {"documented": base, "raw": to_raw(base), "alloc": to_alloc(to_raw(base))}[dialect]
    _same_edges(IRIndex(load_ir(json.dumps(doc).encode())))
