"""The sorted set helpers (irtools.loading.sets) answer as numpy's hashing ones do, and `coords` reads a
raw file's bounds as the models' `coord` pads them.

The screens of GIR201, GIR203, GIR305 and GIR306 decide from these which workloads the reference check
sees: a wrong answer is a finding lost on the fast core (or a clean file sent to the reference).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from irtools.dialects.raw.models import coord
from irtools.loading.boxes import Group, coords, max_before
from irtools.loading.sets import distinct, has_repeats, member

INT64 = st.integers(-(2**63), 2**63 - 1)
COLUMN = st.lists(st.one_of(st.integers(-3, 3), INT64), max_size=40).map(
    lambda v: np.array(v, dtype=np.int64)
)


@given(COLUMN, COLUMN)
def test_member_is_isin(values: np.ndarray, pool: np.ndarray) -> None:
    """Per value, whether the pool holds it, at both ends of int64 and for an empty pool or column."""
    assert member(values, pool).tolist() == np.isin(values, pool).tolist()


@given(COLUMN)
def test_distinct_and_repeats_are_uniques(values: np.ndarray) -> None:
    """The distinct values ascending; repeats exactly when fewer distinct values than values."""
    assert distinct(values).tolist() == np.unique(values).tolist()
    assert has_repeats(values) is (len(np.unique(values)) < len(values))


BOUND = st.one_of(st.integers(0, 2**40), st.lists(st.integers(0, 2**40), min_size=0, max_size=4))


@given(st.lists(BOUND, max_size=30))
def test_coords_pad_as_the_models_coord(values: list[int | list[int]]) -> None:
    """An int K reads as [K, 0, 0, 0], a shorter list padded with 0, and the length says which it was."""
    shaped = coords(values)
    assert shaped is not None
    length, padded = shaped
    assert padded.tolist() == [coord(v) for v in values]
    assert length.tolist() == [len(v) if isinstance(v, list) else -1 for v in values]


@given(
    st.lists(
        st.one_of(st.integers(0, 2**40), st.lists(st.integers(0, 2**40), min_size=4, max_size=4)), max_size=30
    )
)
def test_coords_of_ints_beside_boxes_of_four(values: list[int | list[int]]) -> None:
    """A raw file's weights (int bounds) beside its fmaps (boxes of four): read without padding a list."""
    shaped = coords(values)
    assert shaped is not None
    length, padded = shaped
    assert padded.tolist() == [coord(v) for v in values]
    assert length.tolist() == [4 if isinstance(v, list) else -1 for v in values]


def test_coords_refuse_what_no_bound_is() -> None:
    """A five-number list, a float, a bool, None or a value beyond int64 is no bound: None (the check decides)."""
    for bad in ([1, 2, 3, 4, 5], 1.5, True, None, 2**63, [0, 2**63, 0, 0]):
        assert coords([[0, 0, 0, 0], 7, bad]) is None, bad


class _Box:
    """An object whose `lower` pads `lower_as_written`, declared the way the raw models declare it."""

    COORDS_WRITTEN_AS: ClassVar[dict[str, str]] = {"lower": "lower_as_written"}

    def __init__(self, written: int | list[int]) -> None:
        self.lower_as_written = written

    @property
    def lower(self) -> list[int]:
        return coord(self.lower_as_written)


def test_group_quad_reads_the_written_bounds_when_the_class_declares_them() -> None:
    """A weight's channel bound and a 3-D box read as their padded coordinates, not refused."""
    group = Group([_Box(5), _Box([1, 2, 3]), _Box([1, 2, 3, 4])], np.arange(3, dtype=np.int64))
    quad = group.quad("lower")
    assert quad is not None
    assert quad.tolist() == [[5, 0, 0, 0], [1, 2, 3, 0], [1, 2, 3, 4]]


@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(-1, 50)), max_size=40),
    st.sampled_from([-1, 0]),
)
def test_max_before_is_the_running_maximum_of_each_groups_earlier_elements(
    pairs: list[tuple[int, int]], initial: int
) -> None:
    """The L2 and WL0 coverage, their overlap owners and the NoC links' disjoint intervals read it: a
    maximum carried from one group into the next would merge two snapshots' buffers."""
    pairs = sorted((g, max(v, initial)) for g, v in pairs)
    group = np.array([g for g, _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs], dtype=np.int64)
    expected, best, previous = [], initial, None
    for g, v in pairs:
        if g != previous:
            best, previous = initial, g
        expected.append(best)
        best = max(best, v)
    assert max_before(values, group, initial).tolist() == expected
