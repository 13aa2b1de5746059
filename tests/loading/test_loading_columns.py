"""The column helpers the rules' screens are built on, at their boundaries.

A wrong column makes a screen clear a workload the reference would flag (a missed finding) or send a
clean file to the reference every time (a slow one). Each test pins the exact array or the exact
None (the "does not fit, use the reference" answer) at the value where the helper changes its mind.
"""

from __future__ import annotations

import copy
import dataclasses
import json

import numpy as np
import pytest

from irtools.loading.boxes import _SAMPLE, Group, grouped_min_max, ints, quads
from irtools.loading.columns import _KEY_LIMIT, TransferColumns, pair_keys, transfer_columns
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.loading.mesh import LINEAR, MESH, numbering
from irtools.rules.screens import extents
from tests.mutants.edits import mesh_doc


def _i(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


@pytest.mark.parametrize("count", [1, _SAMPLE, _SAMPLE + 1])
@pytest.mark.parametrize(
    ("last", "dtype"), [(2**31 - 1, np.int32), (2**31, np.int64), (-(2**31) - 1, np.int64)]
)
def test_quads_reads_distinct_lists_on_both_sides_of_the_sample(count: int, last: int, dtype: type) -> None:
    """Unshared lists up to and past the sample size read the same, row by row: as int32 while every number
    fits (half the bytes of what the rules' columns hold), as int64 once one does not."""
    values = [[i, i + 1, i + 2, -i] for i in range(count)]
    values[-1][2] = last
    got = quads(values)
    assert got is not None and got.dtype == dtype
    assert got.tolist() == values


def test_extents_of_int32_boxes_are_counted_in_int64() -> None:
    """A box from 0 to 2**31 - 1 spans 2**31 places, one more than int32 holds: the screens' volumes
    (GIR307, GIR505) would wrap to nothing."""
    low, high = quads([[0, 0, 0, 0]] * 2), quads([[0, 0, 5, 2**31 - 1]] * 2)
    assert low is not None and high is not None and high.dtype == np.int32
    assert extents(low, high).tolist() == [[1, 1, 6, 2**31]] * 2


@pytest.mark.parametrize("count", [3, _SAMPLE + 1])
def test_quads_reads_a_shared_list_at_each_of_its_places(count: int) -> None:
    """Shared lists (the models') are read once and put back at every place they occur."""
    a, b = [0, 1, 2, 3], [4, 5, 6, 7]
    values = [a, b, a] + [[9, 9, 9, i] for i in range(count - 3)]
    got = quads(values)
    assert got is not None
    assert got.tolist() == values


@pytest.mark.parametrize("where", [0, _SAMPLE])
@pytest.mark.parametrize(
    "bad",
    [(0, 0, 0, 0), [0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 2**63], [0, 0, 0, -(2**63) - 1], [0, 0, 0, None]],
)
def test_quads_refuses_what_is_not_a_list_of_4_int64(bad: object, where: int) -> None:
    """A tuple, a wrong length or a value beyond int64 or None anywhere (inside or past the sample):
    None, so the rule runs its reference check. (Floats and strings never get here: the loader's
    models hold ints, GIR101 otherwise; numpy would truncate them.)"""
    values: list[object] = [[i, 0, 0, 0] for i in range(_SAMPLE + 2)]
    values[where] = bad
    assert quads(values) is None
    assert quads([bad]) is None


def test_ints_is_none_beyond_int64() -> None:
    """The largest int64 fits, one more does not."""
    got = ints([2**63 - 1, -(2**63)], 2)
    assert got is not None and got.tolist() == [2**63 - 1, -(2**63)]
    assert ints([2**63], 1) is None
    assert ints([None], 1) is None


def test_grouped_min_max_per_owner_and_the_empty_ones() -> None:
    """Owners 0 and 2 have rows, 1 and 3 none (they get max int / min int, which no range overlaps)."""
    values = np.array([[5, 1, 0, 0], [2, 7, 0, 0], [3, 3, 3, 3]], dtype=np.int64)
    low, high = grouped_min_max(values, _i(0, 0, 2), 4)
    big, small = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    assert low.tolist() == [[2, 1, 0, 0], [big] * 4, [3, 3, 3, 3], [big] * 4]
    assert high.tolist() == [[5, 7, 0, 0], [small] * 4, [3, 3, 3, 3], [small] * 4]
    empty_low, empty_high = grouped_min_max(np.zeros((0, 4), dtype=np.int64), _i(), 2)
    assert empty_low.tolist() == [[big] * 4] * 2 and empty_high.tolist() == [[small] * 4] * 2


class _Obj:
    def __init__(self, a: object, b: object) -> None:
        self.a, self.b = a, b


def test_group_present_keeps_the_objects_with_every_name_set() -> None:
    """Objects with any of the names None are left out, with their rows; all set keeps the group."""
    objects = [_Obj(1, 2), _Obj(None, 2), _Obj(1, None), _Obj(0, 0)]
    group = Group(objects, _i(10, 11, 12, 13))
    both = group.present("a", "b")
    assert both.objects == [objects[0], objects[3]] and both.row.tolist() == [10, 13]
    only_a = group.present("a")
    assert only_a.objects == [objects[0], objects[2], objects[3]] and only_a.row.tolist() == [10, 12, 13]
    whole = Group([objects[0]], _i(5))
    assert whole.present("a", "b") is whole


def test_pair_keys_are_distinct_for_distinct_pairs_and_equal_for_equal_ones() -> None:
    """The scale is one more than the largest second value of both columns, so (0, 3) and (1, 0) differ
    even when the other column holds the largest second value."""
    keys, other = pair_keys(_i(0, 1, 2), _i(2, 0, 1), _i(1, 0), _i(0, 3))
    assert keys.tolist() == [2, 4, 9] and other.tolist() == [4, 3]
    # a pair present in both columns gets the same key
    keys, other = pair_keys(_i(3), _i(1), _i(3, 0), _i(1, 1))
    assert keys[0] == other[0] != other[1]


def test_pair_keys_give_up_at_the_limit() -> None:
    """Keys stay below 2**62: a product of the ranges at the limit is None, just under it is kept."""
    span = 2**31
    top = _KEY_LIMIT // span
    assert pair_keys(_i(top - 1), _i(span - 1), _i(), _i()) is None
    kept = pair_keys(_i(top - 2), _i(span - 1), _i(), _i())
    assert kept is not None and kept[0].tolist() == [(top - 2) * span + span - 1]
    assert pair_keys(_i(), _i(), _i(top - 1), _i(span - 1)) is None


@pytest.mark.parametrize(
    ("cores", "xlen", "ylen", "expected"),
    [
        ([0, 1, 2, 3], 2, 2, LINEAR),
        ([1, 2, 5, 6], 2, 2, MESH),  # Gemini's ids of a 2x2 mesh: y*(xlen+2)+x+1
        ([0, 1, 2, 5], 2, 2, LINEAR),  # 3 fit linear, 3 fit the mesh: a tie stays linear
        ([1, 5, 6, 9], 2, 2, MESH),
        ([0, 4], None, 2, LINEAR),
        ([0, 4], 2, None, LINEAR),
        ([], 2, 2, LINEAR),
    ],
)
def test_numbering_by_which_scheme_fits_more_cores(
    cores: list[int], xlen: int | None, ylen: int | None, expected: str
) -> None:
    """LINEAR when all ids fit 0..xlen*ylen-1 or the mesh is unknown; else the scheme more ids fit."""
    assert numbering(cores, xlen, ylen) == expected


def _index_with_gap(broken: list[int], count: int) -> IRIndex:
    """The 2x2 sample with core 2 holding `count` workloads, those at `broken` with a bad `time`."""
    doc = mesh_doc()
    good = doc["2"][1]
    doc["2"] = [
        copy.deepcopy(good) | {"workload_id": i} | ({"time": "x"} if i in broken else {})
        for i in range(count)
    ]
    return IRIndex(load_ir(json.dumps(doc).encode()))


@pytest.mark.parametrize(
    ("broken", "count", "follows"),
    [
        ([], 3, [True, True, True]),  # nothing left out: every neighbour is the file's
        ([1], 4, [False, False, True]),  # 0 | 2 3: 2 follows 0 only across the gap
        ([0], 3, [False, True]),  # 1 2: the first kept has no neighbour, 2 follows 1
        ([2], 4, [False, True, False]),  # 0 1 | 3
    ],
)
def test_follows_is_false_across_a_workload_left_out(
    broken: list[int], count: int, follows: list[bool]
) -> None:
    """A rule comparing neighbours compares a workload with the one kept before it only when no workload
    between them was left out for a schema error; cores without such a gap are untouched."""
    index = _index_with_gap(broken, count)
    on_core_2 = [ref for ref in index.rows if ref.core_id == 2]
    assert [index.follows(ref) for ref in on_core_2] == follows
    assert all(index.follows(ref) for ref in index.rows if ref.core_id != 2)


def _columns(core: list[int], wid: list[int], dest_core: list[int], dest_wid: list[int]) -> TransferColumns:
    built = transfer_columns(IRIndex(load_ir(json.dumps(mesh_doc()).encode())))
    assert built is not None
    return dataclasses.replace(
        built, core=_i(*core), workload_id=_i(*wid), dest_core=_i(*dest_core), dest_workload_id=_i(*dest_wid)
    )


def test_workload_keys_scale_by_the_largest_id_of_workloads_and_destinations() -> None:
    """The scale is one more than the largest workload id of the workloads AND of the destinations, so a
    destination naming workload 9 on core 0 never takes the key of a workload of core 1."""
    cols = _columns([0, 1], [0, 2], [0], [9])
    keys = cols.workload_keys(_i(0, 1, 0), _i(9, 0, 2))
    assert keys is not None and keys.tolist() == [9, 10, 2]


def test_workload_keys_give_up_at_the_limit() -> None:
    """(largest core + 1) * (largest id + 1) at 2**62 is None, one core fewer is kept; either column's
    largest core counts."""
    span = 2**31
    top = _KEY_LIMIT // span
    assert _columns([top - 1], [span - 1], [], []).workload_keys(_i(0), _i(0)) is None
    assert _columns([0], [0], [top - 1], [span - 1]).workload_keys(_i(0), _i(0)) is None
    kept = _columns([top - 2], [span - 1], [], []).workload_keys(_i(1), _i(1))
    assert kept is not None and kept.tolist() == [span + 1]
