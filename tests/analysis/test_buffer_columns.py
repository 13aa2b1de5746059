"""L2 and WL0 tables from columns (irtools.analysis.l2_columnar, wl0_columnar) equal the snapshot walk's.

Real files seldom overlap, wrap or repeat an entry; these are made from real ones by moving their
tensors. Allocated: overlaps (shared, nested, identical and touching ranges), a tensor held twice in
one snapshot, empty and past-the-end tensors, under an unknown, a large and a small L2 size.
Documented (one ring region, the whole buffer): tensors wrapping around its end, starting past it,
larger than it. WL0: weights crowded into the first 2 KiB, repeated, renumbered, with and without
a WL0 size.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pandas as pd
import pytest

from irtools.analysis.buffers import l2_tables, wl0_tables
from irtools.loading.index import IRIndex
from irtools.loading.load import load_ir
from irtools.options import RunOptions
from irtools.reference import reference_core
from tests.conftest import FIXTURES

ALLOC = FIXTURES / "gemini-alloc" / "resnet_2x2_b1_alloc.json"
DOCUMENTED = FIXTURES / "gemini" / "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json"


def _both(document: dict[str, Any], l2_size: int | None, dialect: str = "alloc") -> None:
    loaded = load_ir(json.dumps(document).encode(), "moved.json")
    assert loaded.dialect.name == dialect and loaded.ir is not None
    tables = {}
    for reference in (False, True):
        with reference_core(reference):
            tables[reference] = l2_tables(IRIndex(loaded, RunOptions(l2_size=l2_size)))
    for name, frame in tables[False].items():
        pd.testing.assert_frame_equal(frame, tables[True][name], check_exact=True, obj=name)


def _moved(seed: int) -> dict[str, Any]:
    """The file with every entry moved into the first 40 blocks (most overlap), some held twice, some emptied."""
    rng = random.Random(seed)
    places: dict[str, int] = {}
    document = json.loads(ALLOC.read_text())
    for key, workloads in document.items():
        if not isinstance(workloads, list) or key == "-1":
            continue
        for workload in workloads:
            buffer = workload["buffer"]
            for entry in buffer:
                # One place per tensor (as written), so lifetimes span snapshots as in the file.
                entry["address"] = places.setdefault(json.dumps(entry, sort_keys=True), rng.randrange(40))
                if rng.random() < 0.1:
                    entry["block"] = 0
            if buffer and rng.random() < 0.2:
                buffer.append(copy.deepcopy(rng.choice(buffer)))  # the same tensor twice in one snapshot
    return document


@pytest.mark.skipif(not ALLOC.exists(), reason="../shared/fixtures not present")
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("l2_size", [None, 512 * 1024, 16 * 1024])
def test_moved_tensors_give_the_walks_tables(seed: int, l2_size: int | None) -> None:
    _both(_moved(seed), l2_size)


@pytest.mark.skipif(not ALLOC.exists(), reason="../shared/fixtures not present")
def test_the_moved_files_do_overlap_and_repeat() -> None:
    # The cases above are only worth their name if the walk finds what they were made for.
    document = _moved(0)
    with reference_core(True):
        tables = l2_tables(
            IRIndex(load_ir(json.dumps(document).encode(), "moved.json"), RunOptions(l2_size=16 * 1024))
        )
    tensors = tables["tensors"]
    assert tensors["overlaps"].any() and not tensors["overlaps"].all() and (tensors["snapshots"] > 1).any()
    assert (tensors["size"] == 0).any() and tensors["problem"].notna().any()
    # A tensor held twice in a snapshot starts a second lifetime there: two rows share a first position.
    twice = tensors.groupby(["core_id", "tensor_id", "address", "size", "first_position"]).size()
    assert (twice > 1).any()


def _wrapped(seed: int) -> dict[str, Any]:
    """The documented file with tensors moved near the buffer's end: many wrap, some start past it,
    a few are larger than the whole buffer."""
    rng = random.Random(seed)
    document = json.loads(DOCUMENTED.read_text())
    size = document["buffersize"]
    for workload in document["0"]:
        for entry in workload["buffer"]:
            entry["address"] = size - rng.randrange(entry["size"] + 1) + rng.choice([0, 0, 0, 4096])
            if rng.random() < 0.05:
                entry["size"] = size + 64
        if workload["buffer"] and rng.random() < 0.2:
            workload["buffer"].append(copy.deepcopy(rng.choice(workload["buffer"])))
    # The edges: ending exactly at the buffer's end (no wrap), starting exactly there (past it).
    first, second = document["0"][0]["buffer"][0], document["0"][1]["buffer"][0]
    first["address"], second["address"] = size - first["size"], size
    return document


@pytest.mark.skipif(not DOCUMENTED.exists(), reason="../shared/fixtures not present")
@pytest.mark.parametrize("seed", range(4))
def test_wrapped_tensors_give_the_walks_tables(seed: int) -> None:
    _both(_wrapped(seed), None, "documented")


@pytest.mark.skipif(not DOCUMENTED.exists(), reason="../shared/fixtures not present")
def test_the_wrapped_files_do_wrap_and_break_the_region() -> None:
    with reference_core(True):
        tensors = l2_tables(IRIndex(load_ir(json.dumps(_wrapped(0)).encode(), "w.json")))["tensors"]
    assert tensors["wraps"].any() and tensors["overlaps"].any()
    problems = " ".join(tensors["problem"].dropna())
    assert "past buffersize" in problems and "do not fit in ring region" in problems


def _crowded_wl0(seed: int) -> dict[str, Any]:
    """The documented file with its WL0 weights moved into the first 2 KiB (most overlap), some
    held twice in a snapshot, some given another layer's name or transfer id."""
    rng = random.Random(seed)
    places: dict[str, int] = {}
    document = json.loads(DOCUMENTED.read_text())
    for workload in document["0"]:
        weights = workload.get("wl1_buffer") or []
        for weight in weights:
            weight["address"] = places.setdefault(weight["layer_name"], rng.randrange(2048))
            if rng.random() < 0.1:
                weight["transfer_id"] = [rng.randrange(3)]  # another weight at the same place
            elif rng.random() < 0.1:
                weight["layer_name"] += " (renamed)"  # likewise
        if weights and rng.random() < 0.3:
            weights.append(copy.deepcopy(rng.choice(weights)))
    return document


@pytest.mark.skipif(not DOCUMENTED.exists(), reason="../shared/fixtures not present")
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("wl0_size", [None, 4096, 1024])
def test_crowded_wl0_gives_the_walks_tables(seed: int, wl0_size: int | None) -> None:
    loaded = load_ir(json.dumps(_crowded_wl0(seed)).encode(), "crowded.json")
    tables = {}
    for reference in (False, True):
        with reference_core(reference):
            tables[reference] = wl0_tables(IRIndex(loaded), wl0_size)
    for name, frame in tables[False].items():
        pd.testing.assert_frame_equal(frame, tables[True][name], check_exact=True, obj=name)
    weights = tables[True]["wl0_tensors"]
    assert weights["overlaps"].any() and not weights["overlaps"].all() and (weights["snapshots"] > 1).any()


def _resourced(seed: int) -> dict[str, Any]:
    """The file with its entries' sources and ids varied: some from DRAM and a core at once (mixed), some
    from cores only, some without a source, some with several transfer ids or none."""
    rng = random.Random(seed)
    document = json.loads(ALLOC.read_text())
    for key, workloads in document.items():
        if not isinstance(workloads, list) or key == "-1":
            continue
        for workload in workloads:
            for entry in workload["buffer"]:
                sources = entry.get("source") or []
                pick = rng.random()
                if sources and pick < 0.2:
                    entry["source"] = [*sources, {**sources[0], "type": "core"}]
                elif sources and pick < 0.4:
                    entry["source"] = [{**s, "type": "core"} for s in sources]
                elif pick < 0.5:
                    entry["source"] = []
                if rng.random() < 0.3:
                    entry["transfer_id"] = [rng.randrange(1000) for _ in range(rng.randrange(4))]
    return document


@pytest.mark.skipif(not ALLOC.exists(), reason="../shared/fixtures not present")
@pytest.mark.parametrize("seed", range(3))
def test_sources_and_ids_of_every_kind_give_the_walks_tables(seed: int) -> None:
    document = _resourced(seed)
    _both(document, None)
    with reference_core(True):
        tensors = l2_tables(IRIndex(load_ir(json.dumps(document).encode(), "x.json"), RunOptions()))[
            "tensors"
        ]
    assert {"mixed", "core", "DRAM"} <= set(tensors["source"].dropna())
    assert tensors["source"].isna().any() and tensors["transfer_ids"].str.contains(";").any()
