"""Ring-buffer placement and cycle finding, the two algorithms the L2 and deadlock rules rest on."""

from __future__ import annotations

from irtools.loading.graph import find_cycles
from irtools.loading.l2 import place, regions_of

REGIONS = [(0, 100), (100, 200)]


def test_tensor_inside_region_is_one_segment() -> None:
    assert place(10, 20, REGIONS, 200).segments == ((10, 30),)


def test_tensor_past_region_end_wraps_to_region_start() -> None:
    placed = place(90, 20, REGIONS, 200)
    assert placed.segments == ((90, 100), (0, 10)) and placed.problem is None and placed.wraps


def test_tensor_ending_exactly_at_region_end_does_not_wrap() -> None:
    assert place(180, 20, REGIONS, 200).segments == ((180, 200),)


def test_tensor_larger_than_its_region_is_a_problem() -> None:
    assert "do not fit" in (place(150, 101, REGIONS, 200).problem or "")


def test_address_past_buffersize_is_a_problem() -> None:
    assert "past buffersize" in (place(200, 1, REGIONS, 200).problem or "")


def test_address_in_a_gap_between_regions_is_a_problem() -> None:
    assert "outside every ring region" in (place(50, 1, [(0, 40), (60, 100)], 100).problem or "")


def test_no_ring_info_means_the_whole_buffer() -> None:
    assert regions_of([], 64) == [(0, 64)]


def test_find_cycles_reports_one_cycle_per_component() -> None:
    # 0 -> 1 -> 2 -> 0 is a cycle; 3 -> 4 is not; 5 -> 5 is a self-loop.
    edges = [[1], [2], [0], [4], [], [5]]
    cycles = sorted(sorted(c) for c in find_cycles(6, edges))
    assert cycles == [[0, 1, 2], [5]]


def test_find_cycles_on_a_dag_is_empty() -> None:
    assert find_cycles(4, [[1, 2], [3], [3], []]) == []


def test_find_cycles_handles_long_chains_without_recursion() -> None:
    n = 50_000
    edges = [[i + 1] for i in range(n - 1)] + [[0]]
    (cycle,) = find_cycles(n, edges)
    assert len(cycle) == n
