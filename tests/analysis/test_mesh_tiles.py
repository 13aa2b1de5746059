"""The mesh view's numbers: link loads checked against the raw JSON, windows that add up, tile metrics."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pandas as pd
import pytest

from irtools.analysis import AnalysisOptions, analyze
from irtools.analysis.link_load import crossing, noc_links_table
from irtools.analysis.tiles import mesh_shape
from irtools.gemini import GEMINI_FREQUENCY
from irtools.reference import reference_core

ROOT = Path(__file__).resolve().parents[2]
RAW_4X4 = ROOT.parent / "shared/fixtures/gemini-raw/resnet_4x4_b4_ff1_ss2_rr50_ir.json"
MESH = ROOT / "sample_ir/valid/mesh2x2_conv_b1_c4_bw16_stschedule.json"
SINGLE = ROOT.parent / "shared/fixtures/gemini/int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json"


@pytest.fixture(scope="module")
def real() -> object:
    return analyze(RAW_4X4, AnalysisOptions(noc_bw=16))


def _core_bytes_up_column_3_from_row_3() -> tuple[int, int]:
    """Read from the JSON alone: ofmaps of the row-3 cores (ids 19-22) with a consumer in column 3
    above row 3 (ids 4, 10, 16). X-first routing takes each such tree (one per transfer and consumer
    step, the k-th run of the consumer's layer on its core) along row 3 to column 3, then up through
    (3,3)->(3,2). Bytes: the raw size in bits / 8, once per tree."""
    d = json.loads(RAW_4X4.read_text())
    step = {}
    for core, workloads in d.items():
        if core.isdigit():
            seen: collections.Counter[str] = collections.Counter()
            for w in workloads:
                step[(int(core), w["workload_id"])] = (w["layer_name"], seen[w["layer_name"]])
                seen[w["layer_name"]] += 1
    trees: dict[tuple[object, ...], int] = {}
    for core in (19, 20, 21, 22):
        for w in d[str(core)]:
            for o in w.get("ofmap") or []:
                for dst in o["destination"]:
                    if dst.get("type") == "core" and dst["id"] in (4, 10, 16):
                        trees[(o["transfer_id"], core, step[(dst["id"], dst["workload_id"])])] = -(
                            -o["size"] // 8
                        )
    return len(trees), sum(trees.values())


def test_one_link_against_the_transfers_in_the_file(real: object) -> None:
    table = real.noc_link_table  # type: ignore[attr-defined]
    row = table[table["link"] == "(3,3)->(3,2)"].iloc[0]
    trees, total = _core_bytes_up_column_3_from_row_3()
    # 16 trees of 68,096 bytes to conv_2_0_res (4 sources x 4 batch groups), 8 of core 22 to pool5 (7,987 / 3,185)
    assert (trees, total) == (24, 1_134_224)
    assert row["core_bytes"] == total
    assert row["direction"] == "-y" and row["dram_write_bytes"] == 0  # writes run along the port columns
    listed = crossing(real.link_loads(), real.noc_runs, (3, 3, 3, 2))  # type: ignore[attr-defined]
    assert int(listed.loc[listed["kind"] == "core", "bytes"].sum()) == total
    # The runs through the link are its rows: the same list as from every routed row.
    with reference_core():
        every_row = crossing(real.link_loads(), real.noc_runs, (3, 3, 3, 2))  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(listed, every_row, check_exact=True)
    # 16 B per NoC cycle, 1.3 NoC cycles per IR cycle (Gemini's frequency): the share of the makespan.
    makespan = real.makespan("dependency")  # type: ignore[attr-defined]
    assert row["busy_share"] == pytest.approx(row["bytes"] / 16 / GEMINI_FREQUENCY / makespan)


def test_windows_add_up_to_the_whole_schedule(real: object) -> None:
    loads = real.link_loads()  # type: ignore[attr-defined]
    whole = noc_links_table(loads, None, GEMINI_FREQUENCY).set_index("link")["bytes"]
    middle = 700_000.0
    first = noc_links_table(loads, None, GEMINI_FREQUENCY, (0.0, middle)).set_index("link")["bytes"]
    second = noc_links_table(loads, None, GEMINI_FREQUENCY, (middle, loads.span[1])).set_index("link")[
        "bytes"
    ]
    halves = first.add(second, fill_value=0).reindex(whole.index)
    assert (halves - whole).abs().max() <= 2  # pro rata split, each half rounded to whole bytes
    assert first.sum() < whole.sum() and second.sum() < whole.sum()


def test_tiles_busy_share_is_the_utilization_and_a_window_cuts_it(real: object) -> None:
    tiles = real.tiles().set_index("core_id")  # type: ignore[attr-defined]
    cores = real.cores[real.cores["model"] == "dependency"].set_index("core_id")  # type: ignore[attr-defined]
    assert tiles["busy_share"].round(9).equals(cores["utilization"].round(9))
    assert (tiles["busy_share"] + tiles["waiting_share"] <= 1 + 1e-9).all()
    assert tiles.loc[22, ["x", "y"]].tolist() == [3, 3]
    early = real.tiles(window=(0.0, 100_000.0)).set_index("core_id")  # type: ignore[attr-defined]
    assert early["top_layers"].str.startswith("conv1").all()  # ResNet-50 opens with conv1 on every core
    assert (early["dram_bytes"] < tiles["dram_bytes"]).all()


def test_sent_and_received_on_the_sample_mesh() -> None:
    # mesh2x2 sample: cores 0 and 1 each multicast 8 KiB (transfers 10, 11) to cores 2 and 3; core 2's
    # transfer 12 (16 KiB) goes to its own next workload, which never enters the NoC.
    tiles = analyze(MESH).tiles().set_index("core_id")
    assert tiles["sent_bytes"].tolist() == [8192, 8192, 0, 0]
    assert tiles["received_bytes"].tolist() == [0, 0, 16384, 16384]


def test_one_core_is_no_mesh() -> None:
    assert mesh_shape(analyze(SINGLE).index) is None
    assert mesh_shape(analyze(MESH).index) is not None
