"""The columnar transfer screen's building blocks: lookups, composite keys, the wait graph's order."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from irtools import reference
from irtools.loading.columns import (
    TransferColumns,
    WorkloadTransfers,
    _kahn,
    first_rows,
    joined,
    joined_rows,
    pair_keys,
)
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
        narrow = TransferColumns.joined(index, [p.narrowed() for p in parts], narrow=True)
        for name in TransferColumns.__dataclass_fields__:
            assert getattr(joined, name).tolist() == getattr(whole, name).tolist(), name
            assert getattr(narrow, name).tolist() == getattr(whole, name).tolist(), name
        assert narrow.core.dtype == np.int32 and narrow.read_row.dtype == np.int32  # analyze keeps these
        assert narrow.workload_keys(narrow.core, narrow.workload_id).tolist() == (
            whole.workload_keys(whole.core, whole.workload_id).tolist()
        )


def test_pair_keys_refuse_values_too_large_to_combine() -> None:
    small = pair_keys(ints(1, 2), ints(3, 4), ints(2), ints(4))
    assert small is not None and small[0][1] == small[1][0]
    assert pair_keys(ints(2**40), ints(2**40), ints(0), ints(0)) is None


def test_pair_keys_of_int32_columns_do_not_wrap() -> None:
    """analyze keeps its transfer columns in int32: a key of a value near 2**31 is still exact."""
    big = np.array([2**31 - 1, 5], dtype=np.int32)
    small = np.array([3, 0], dtype=np.int32)
    keys = pair_keys(big, small, ints(2**31 - 1), ints(3))
    assert keys is not None
    assert keys[0].tolist()[0] == keys[1].tolist()[0] == (2**31 - 1) * 4 + 3


def test_joined_stays_int64_where_a_part_does_not_fit_int32() -> None:
    parts = [np.array([1, 2], dtype=np.int32), ints(2**40)]
    assert joined(parts, narrow=True).dtype == np.int64
    assert joined(parts, narrow=True).tolist() == [1, 2, 2**40]
    assert joined([np.array([7], dtype=np.int32)], ints(-1), narrow=True).tolist() == [-1, 7]
    rows = joined_rows([np.array([0, 1], dtype=np.int32), np.array([0], dtype=np.int32)], [2, 1], narrow=True)
    assert rows.dtype == np.int32 and rows.tolist() == [0, 1, 2]


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
