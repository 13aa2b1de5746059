"""The array helpers the columnar screens are built from, against plain Python on random inputs."""

from __future__ import annotations

import random

import numpy as np
import pytest

from irtools.loading import columns
from irtools.loading.boxes import grouped_min_max, quads
from irtools.loading.columns import join


def _graph(rng: random.Random, count: int, cyclic: bool) -> tuple[np.ndarray, np.ndarray]:
    rank = list(range(count))
    rng.shuffle(rank)  # a hidden topological order
    edges = [(a, b) for a in range(count) for b in range(count) if rank[a] < rank[b] and rng.random() < 0.05]
    if cyclic:
        a, b = rng.sample(range(count), 2)
        path = sorted((a, b), key=rank.__getitem__)
        edges += [(path[0], path[1]), (path[1], path[0])]
    src, dst = zip(*edges, strict=True) if edges else ((), ())
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)


@pytest.mark.parametrize(
    ("levels", "wide"),
    [(1, 1), (3, 1), (4096, 1), (4096, 4), (4096, 128)],
    ids=["node by node", "mixed", "by levels", "by levels while wide", "narrow: node by node"],
)
def test_kahn_finds_exactly_the_cyclic_graphs(
    levels: int, wide: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(columns, "_LEVELS", levels)
    monkeypatch.setattr(columns, "_WIDE", wide)
    rng = random.Random(18)
    for trial in range(60):
        cyclic = trial % 2 == 1
        src, dst = _graph(rng, rng.randint(2, 40), cyclic)
        count = int(max(src.max(initial=0), dst.max(initial=0))) + 1
        assert columns._kahn(count, src, dst) is not cyclic


def test_join_lists_every_equal_pair() -> None:
    rng = random.Random(18)
    for _ in range(50):
        left = np.array([rng.randint(0, 6) for _ in range(rng.randint(0, 15))], dtype=np.int64)
        right = np.array([rng.randint(0, 6) for _ in range(rng.randint(0, 15))], dtype=np.int64)
        i, j = join(left, right)
        expected = sorted((a, b) for a in range(len(left)) for b in range(len(right)) if left[a] == right[b])
        assert sorted(zip(i.tolist(), j.tolist(), strict=True)) == expected


def test_grouped_min_max_per_owner() -> None:
    values = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]], dtype=np.int64)
    low, high = grouped_min_max(values, np.array([0, 0, 2]), 3)
    assert low[0].tolist() == [3, 1, 2, 1] and high[0].tolist() == [5, 9, 4, 6]
    assert low[2].tolist() == high[2].tolist() == [5, 3, 5, 8]
    assert low[1, 0] > high[1, 0]  # no rows: an empty range


def test_quads_reads_shared_lists_once_and_refuses_other_shapes() -> None:
    shared = [1, 2, 3, 4]
    assert quads([shared, [5, 6, 7, 8], shared]).tolist() == [[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4]]
    assert quads([[1, 2, 3]]) is None
    assert quads([(1, 2, 3, 4)]) is None  # the reference compares lists: a tuple never equals one
    assert quads([[1, 2, 3, 2**63]]) is None


def test_validate_keeps_no_columns_alive() -> None:
    # The columns are cached per index; one kept alive would keep every model alive after validate,
    # for the collector to scan once it resumes (a whole-process cost of up to a parse).
    from irtools.loading import boxes
    from irtools.validate import validate_file
    from tests.conftest import ROOT

    valid = sorted(p for p in (ROOT / "sample_ir" / "valid").glob("*.json") if ".expected" not in p.name)
    # Indexes an earlier test left behind (an in-process `irtools analyze` freezes whatever garbage is
    # alive then, out of the collector's reach) are not validate's: only new ones count.
    earlier = set(boxes._BUILT) | set(columns._BUILT)
    for sample in valid[:3]:
        validate_file(str(sample))
    assert not set(boxes._BUILT) - earlier and not set(columns._BUILT) - earlier
