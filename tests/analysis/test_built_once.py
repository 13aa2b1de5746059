"""The dashboard's callbacks ask an analysis for the same whole-schedule values from several threads at
once: each value is built by one of them, the others wait for it, and no two are built at the same time
(irtools.analysis.once): the server's peak memory was their temporaries side by side."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from irtools.analysis import analyze
from irtools.analysis.analysis import Analysis
from irtools.analysis.once import BuiltOnce

ROOT = Path(__file__).resolve().parents[2]
MESH = ROOT / "sample_ir" / "valid" / "mesh2x2_conv_b1_c4_bw16_stschedule.json"


def _at_once(ask: Any, threads: int = 4) -> list[Any]:
    """`ask()` from `threads` threads started together; their answers."""
    start = threading.Barrier(threads)
    answers: list[Any] = [None] * threads

    def run(k: int) -> None:
        start.wait()
        answers[k] = ask()

    workers = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return answers


def test_threads_asking_at_once_get_one_build() -> None:
    kept = BuiltOnce()
    builds = []

    def build() -> object:
        builds.append(1)
        time.sleep(0.05)  # long enough for every other thread to ask meanwhile
        return object()

    answers = _at_once(lambda: kept.get("links", build))
    assert len(builds) == 1
    assert all(a is answers[0] for a in answers)
    assert "links" in kept


def _most_built_at_once(cache_of: Any) -> int:
    """Four threads each ask `cache_of(key)` for a different key (0-3) at once; the most builds that ran
    at the same time (every answer checked)."""
    building, most = [0], [0]

    def build(key: int) -> int:
        building[0] += 1
        most[0] = max(most[0], building[0])
        time.sleep(0.02)
        building[0] -= 1
        return key

    keys = iter(range(4))
    lock = threading.Lock()

    def ask() -> int:
        with lock:
            key = next(keys)
        return int(cache_of(key).get(key, lambda: build(key)))

    assert sorted(_at_once(ask)) == [0, 1, 2, 3]
    return most[0]


def test_two_values_are_never_built_at_the_same_time() -> None:
    kept = BuiltOnce()
    assert _most_built_at_once(lambda key: kept) == 1


def test_a_failed_build_keeps_nothing_and_a_nested_ask_does_not_deadlock() -> None:
    kept = BuiltOnce()
    with pytest.raises(ValueError):
        kept.get("k", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert "k" not in kept
    assert (
        kept.get("k", lambda: kept.get("k", lambda: 1) + 1) == 2
    )  # inside: built again, then the outer kept
    kept.pop("k")
    assert kept.get("k", lambda: 3) == 3


def test_the_mesh_counters_and_warm_up_route_the_whole_schedule_once() -> None:
    a = analyze(MESH)
    whole = Analysis._whole_links
    calls = []

    def slow(self: Analysis, model: str) -> Any:
        calls.append(model)
        time.sleep(0.05)
        return whole(self, model)

    with mock.patch.object(Analysis, "_whole_links", slow):
        tables = _at_once(lambda: a.link_table("dependency"))
        tiles = _at_once(lambda: a.tiles("dependency"))
    assert calls == ["dependency"]
    assert all(t is tables[0] for t in tables) and all(t is tiles[0] for t in tiles)


def test_work_apart_never_overlaps_a_build() -> None:
    """The dashboard's check runs apart from the whole-schedule builds (`Analysis.apart`): its columns
    and a build's temporaries are never held at the same time."""
    a = analyze(MESH)
    running: list[str] = []
    overlaps: list[list[str]] = []

    def phase(name: str) -> str:
        running.append(name)
        if len(running) > 1:
            overlaps.append(list(running))
        time.sleep(0.02)
        running.remove(name)
        return name

    whole = Analysis._whole_links

    def slow(self: Analysis, model: str) -> Any:
        phase("build")
        return whole(self, model)

    asks = iter([lambda: a.link_table("dependency"), lambda: a.apart(lambda: phase("check"))] * 2)
    lock = threading.Lock()

    def ask() -> Any:
        with lock:
            job = next(asks)
        return job()

    with mock.patch.object(Analysis, "_whole_links", slow):
        answers = _at_once(ask)
    assert sum(isinstance(answer, str) for answer in answers) == 2  # both checks ran
    assert overlaps == []


def test_a_window_asked_for_at_once_is_built_once() -> None:
    """A zoom and a core picked before the mesh is drawn ask for the same window's tiles at once."""
    a = analyze(MESH)
    built = Analysis._tiles
    calls = []

    def slow(self: Analysis, model: str, window: Any) -> Any:
        calls.append(window)
        time.sleep(0.05)
        return built(self, model, window)

    with mock.patch.object(Analysis, "_tiles", slow):
        tiles = _at_once(lambda: a.tiles("dependency", (0.0, 100.0)))
    assert calls == [(0.0, 100.0)]
    assert all(t is tiles[0] for t in tiles)


def test_a_bounded_cache_keeps_the_last_values_and_builds_alongside_another_one_at_a_time() -> None:
    whole = BuiltOnce()
    windows = BuiltOnce(keep=2, alongside=whole)
    for key in "abc":
        windows.get(key, lambda: object())
    assert "a" not in windows and "b" in windows and "c" in windows  # the oldest let go first
    # A window's build never overlaps a whole-schedule value's.
    assert _most_built_at_once(lambda key: whole if key % 2 else windows) == 1
