"""The columnar transfer screen's building blocks: lookups, composite keys, the wait graph's order."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irtools import reference
from irtools.loading.columns import TransferColumns, WorkloadTransfers, _kahn, first_rows, pair_keys
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.loading.waits import waits_acyclic
from irtools.validate import validate_file
from tests.conftest import ROOT


def ints(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_first_rows_is_a_first_wins_lookup() -> None:
    # As dict.setdefault over the keys in order: a repeated key answers with its first row.
    assert first_rows(ints(5, 3, 5, 7), ints(5, 7, 9, 3)).tolist() == [0, 3, -1, 1]
    assert first_rows(ints(), ints(1, 2)).tolist() == [-1, -1]


@pytest.mark.parametrize(
    "fixture",
    ["gemini-raw/resnet_4x4_b4_ff1_ss2_rr50_ir.json", "gemini-alloc/resnet_4x4_b4_ff1_ss2_rr50_alloc.json"],
)
def test_transfer_columns_split_by_core_join_back_into_the_whole(fixture: str) -> None:
    """analyze builds a batch of cores' columns at once and keeps each core's part: the parts joined
    are the whole file's columns, whatever cut (the real 16-core file cut by core, and in uneven parts)."""
    index = IRIndex(load_ir(ROOT.parent / "shared" / "fixtures" / fixture))
    whole = TransferColumns.build(index)
    cores = [len(refs) for refs in index.cores.values()]
    for counts in (cores, [sum(cores[:5]), 0, sum(cores[5:])]):
        parts = WorkloadTransfers.build(index).split(counts)
        assert [len(p.core) for p in parts] == counts
        joined = TransferColumns.joined(index, parts)
        for name in TransferColumns.__dataclass_fields__:
            assert getattr(joined, name).tolist() == getattr(whole, name).tolist(), name


def test_pair_keys_refuse_values_too_large_to_combine() -> None:
    small = pair_keys(ints(1, 2), ints(3, 4), ints(2), ints(4))
    assert small is not None and small[0][1] == small[1][0]
    assert pair_keys(ints(2**40), ints(2**40), ints(0), ints(0)) is None


@pytest.mark.parametrize(
    ("edges", "acyclic"),
    [
        ([(0, 1), (1, 2), (0, 2)], True),
        ([(0, 1), (1, 2), (2, 0)], False),
        ([(1, 1)], False),  # a workload waiting for itself
        ([], True),
    ],
)
def test_kahn_finds_a_cycle_exactly_when_there_is_one(edges: list[tuple[int, int]], acyclic: bool) -> None:
    src = ints(*(a for a, _ in edges))
    dst = ints(*(b for _, b in edges))
    assert _kahn(3, src, dst) is acyclic


@pytest.mark.parametrize(
    ("name", "acyclic"),
    [
        ("invalid/GIR502-deadlock.json", False),
        ("valid/near-miss-GIR502-cross-core-wait.json", True),
        ("valid/mesh2x2_conv_b1_c4_bw16_stschedule.json", True),
    ],
)
def test_waits_acyclic_on_the_samples(name: str, acyclic: bool) -> None:
    index = IRIndex(load_ir(ROOT / "sample_ir" / name))
    assert waits_acyclic(index) is acyclic


def test_the_environment_selects_the_reference_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(reference.ENV, raising=False)
    assert not reference.active()
    monkeypatch.setenv(reference.ENV, "reference")
    assert reference.active()
    with reference.reference_core(False):  # the tests' switch wins over the environment
        assert not reference.active()


def test_a_broken_entry_with_an_id_beyond_int64_leaves_the_screen_exact(tmp_path: Path) -> None:
    # A schema-broken DRAM out entry still counts as a producer (unchecked_transfer_ids), whatever its
    # size: GIR201 crashed building int64 columns from such an id (found by the synth fuzz suite).
    doc = json.loads((ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json").read_text())
    doc["-1"]["out"][0]["transfer_id"] = 2**70
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc))
    reports = {}
    for ref in (False, True):
        with reference.reference_core(ref):
            reports[ref] = [(f.code, f.pointer, f.message) for f in validate_file(str(path)).findings]
    assert reports[False] == reports[True]
    assert not [f for f in reports[False] if f[0] == "GIR001"]
    assert ("GIR101", "/-1/out/0/transfer_id") in {(c, p) for c, p, _ in reports[False]}
