"""The `noc` timing model's tables on the 2x2 sample, every number worked out by hand.

The sample (sample_ir/valid/mesh2x2_conv_b1_c4_bw16_stschedule.json) runs Conv_0 on cores 0 and 1,
Conv_1 on cores 2 and 3, then Relu_2 on core 2. Its workload times are set here so that each kind of
step shows: one bound by its compute, one by a link, one by DRAM. At 7 bytes per cycle and frequency
1, the heaviest links (2688, 18688 and 8192 bytes, tests/mutants/test_killed.py) take 384, 2670 and
1171 cycles; with a DRAM bandwidth of 16384 (4 bytes per cycle on each of Gemini's 4 channels) the
steps' DRAM bytes (10752, 25600, 16384) take 672, 1600 and 1024 cycles.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from irtools.analysis import Analysis
from irtools.analysis.noc import NocModel, noc_headline, noc_links, noc_schedule, noc_transfers
from irtools.loading.index import IRIndex
from irtools.reference import reference_core
from tests.analysis.builders import analysis_of
from tests.mutants.edits import mesh_doc

TIMES = {("0", 0): 500, ("1", 0): 800, ("2", 0): 1000, ("3", 0): 2000, ("2", 1): 100}
"""(core key, array index) -> workload time: Conv_0 800 at most, Conv_1 2000, Relu_2 100."""


def timed_doc() -> dict[str, Any]:
    doc = mesh_doc()
    for (core, at), time in TIMES.items():
        doc[core][at]["time"] = time
    return doc


@pytest.fixture
def analysis() -> Analysis:
    # Built per test, not per module: mutation testing runs only the tests that reach a function,
    # and a shared analysis would reach it in the first test alone.
    return analysis_of(timed_doc(), noc_bw=7, noc_frequency=1.0, dram_bw=16384)


def test_step_times_are_the_longer_of_the_heaviest_link_and_dram(analysis: Analysis) -> None:
    """Step 0 is DRAM-bound (672 > 384 link cycles), steps 1 and 2 link-bound (2670 > 1600, 1171 > 1024)."""
    steps = analysis.noc_steps
    assert list(steps.columns) == [
        "step",
        "layer_name",
        "instance",
        "link_bytes",
        "noc_time",
        "link",
        "hops",
        "dram_bytes",
        "dram_time",
        "layer_link_bytes",
        "layer_link",
        "layer_noc_time",
    ]
    assert steps["step"].tolist() == [0, 1, 2]
    assert steps["layer_name"].tolist() == ["Conv_0", "Conv_1", "Relu_2"]
    assert steps["instance"].tolist() == [0, 0, 0]
    assert steps["link_bytes"].tolist() == [2688, 18688, 8192]
    assert steps["link"].tolist() == ["DRAM W0->(0,0)", "(0,0)->(0,1)", "(0,1)->(1,1)"]
    assert steps["dram_bytes"].tolist() == [10752, 25600, 16384]
    # Gemini's NoC_tot_hops: bytes x hops over the step's links (DRAM ports on columns -1 and 2 count).
    assert steps["hops"].tolist() == [21504, 100352, 32768]
    assert steps["dram_time"].tolist() == [672, 1600, 1024]
    assert steps["noc_time"].tolist() == [672, 2670, 1171]
    # One step per layer: the layer's own heaviest link and NoC time are its step's.
    assert steps["layer_link_bytes"].tolist() == [2688, 18688, 8192]
    assert steps["layer_link"].tolist() == steps["link"].tolist()
    assert steps["layer_noc_time"].tolist() == [672, 2670, 1171]


def test_layers_say_which_are_bound_by_the_noc_and_by_how_much(analysis: Analysis) -> None:
    """noc_added = step NoC time - its longest workload, when positive: Conv_0 waits on nothing (800 of
    compute > 672), Conv_1 2670 - 2000 = 670, Relu_2 1171 - 100 = 1071."""
    layers = analysis.layers.set_index("layer_name")
    assert layers["noc_added"].to_dict() == {"Conv_0": 0, "Conv_1": 670, "Relu_2": 1071}
    assert layers["bound"].to_dict() == {"Conv_0": "compute", "Conv_1": "NoC", "Relu_2": "NoC"}
    assert layers["noc_link"].to_dict() == {
        "Conv_0": "DRAM W0->(0,0)",
        "Conv_1": "(0,0)->(0,1)",
        "Relu_2": "(0,1)->(1,1)",
    }


def test_noc_schedule_stretches_each_workload_to_its_steps_noc_time(analysis: Analysis) -> None:
    """Each workload lasts max(time, its step's NoC time); the chain Conv_0 -> Conv_1 -> Relu_2 then ends at
    800 + 2670 + 1171 = 4641, where the dependency model ends at 800 + 2000 = 2800 (Relu_2 on core 2
    finishes at 1900)."""
    noc = analysis.schedules["noc"]
    # Workloads in index order: core 0 Conv_0, core 1 Conv_0, core 2 Conv_1 and Relu_2, core 3 Conv_1.
    assert noc.start == [0, 0, 800, 3470, 800]
    assert noc.end == [672, 800, 3470, 4641, 3470]
    assert noc.noc_time == [672, 672, 2670, 1171, 2670]
    assert noc.noc_link == [
        "DRAM W0->(0,0)",
        "DRAM W0->(0,0)",
        "(0,0)->(0,1)",
        "(0,1)->(1,1)",
        "(0,0)->(0,1)",
    ]
    assert (noc.makespan, analysis.schedules["dependency"].makespan) == (4641, 2800)


def test_headline_names_what_the_noc_adds_and_on_which_links(analysis: Analysis) -> None:
    """4641 - 2800 = 1841 cycles added; the links by the cycles their layers add, most first."""
    model = analysis.noc_model
    assert model is not None
    headline = noc_headline(analysis.layers, 2800, 4641, model)
    assert headline == {
        "bandwidth": 7,
        "frequency": 1.0,
        "added": 1841,
        "added_fraction": 1841 / 4641,
        "bound_layers": 2,
        "layers": 3,
        "links": [
            {"link": "(0,1)->(1,1)", "added": 1071, "layers": ["Relu_2"]},
            {"link": "(0,0)->(0,1)", "added": 670, "layers": ["Conv_1"]},
        ],
    }
    unknown = noc_headline(analysis.layers, None, 4641, model)
    assert (unknown["added"], unknown["added_fraction"]) == (None, None)
    assert noc_headline(analysis.layers, 0, 0, model)["added_fraction"] is None


def test_two_bound_layers_on_one_link_add_up() -> None:
    """The headline groups the NoC-bound layers by the link they wait on and sums what they add."""
    layers = pd.DataFrame(
        {
            "layer_name": ["a", "b", "c", "d"],
            "noc_added": [5, 0, 7, 9],
            "bound": ["NoC", "compute", "NoC", "NoC"],
            "noc_link": ["(0,0)->(1,0)", "(0,0)->(1,0)", "(0,0)->(1,0)", "(1,0)->(1,1)"],
        }
    )
    links = noc_headline(layers, 10, 31, NocModel(8))["links"]
    assert links == [
        {"link": "(0,0)->(1,0)", "added": 12, "layers": ["a", "c"]},
        {"link": "(1,0)->(1,1)", "added": 9, "layers": ["d"]},
    ]


def test_headline_links_with_equal_cycles_keep_the_layers_order() -> None:
    """Ties are listed in the order their first layer comes (a stable sort: the same file gives the same
    headline, whatever the number of links)."""
    names = [f"l{i}" for i in range(40)]
    layers = pd.DataFrame(
        {
            "layer_name": names,
            "noc_added": [5 if i % 2 else 7 for i in range(40)],
            "bound": "NoC",
            "noc_link": [f"link {i}" for i in range(40)],
        }
    )
    links = noc_headline(layers, 0, 480, NocModel(8))["links"]
    assert [link["layers"] for link in links] == [[n] for n in names[0::2] + names[1::2]]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"bandwidth": 0}, "NoC bandwidth must be a positive integer, got 0"),
        ({"bandwidth": -1}, "NoC bandwidth must be a positive integer, got -1"),
        ({"bandwidth": 8, "frequency": 0.0}, "NoC frequency must be positive, got 0.0"),
        ({"bandwidth": 8, "frequency": float("nan")}, "NoC frequency must be positive, got nan"),
        ({"bandwidth": 8, "dram_bw": 4095}, "DRAM bandwidth must be at least 4096, got 4095"),
        ({"bandwidth": 8, "dram_bw": 0}, "DRAM bandwidth must be at least 4096, got 0"),
    ],
)
def test_noc_model_rejects_what_gemini_cannot_run(arguments: dict[str, float], message: str) -> None:
    """A DRAM bandwidth under 4096 leaves a channel 0 bytes per cycle (dram_bw // 1024 // 4)."""
    with pytest.raises(ValueError) as raised:
        NocModel(**arguments)  # type: ignore[arg-type]
    assert str(raised.value) == message


def test_noc_model_accepts_the_smallest_of_each() -> None:
    model = NocModel(1, frequency=1e-9, dram_bw=4096)
    assert (model.bandwidth, model.dram_bw) == (1, 4096)


@pytest.mark.parametrize(
    ("dram_bw", "frequency", "dram_bytes", "cycles"),
    [
        (4096, 1.0, 10, 2),  # 10 // 4 = 2 bytes per channel at 1 byte per cycle
        (16384, 1.0, 2688, 168),  # 672 per channel at 4 per cycle
        (16384, 1.0, 2700, 169),  # 675 per channel: 168.75 rounds up
        (16384, 1.3, 2700, 130),  # 169 / 1.3 = 130.0: truncated after the frequency, as Gemini prints it
        (16384, 1.0, 3, 0),  # under 4 bytes: each channel's share is 3 // 4 = 0
        (20479, 1.0, 2700, 169),  # 20479 // 1024 // 4 = 4 bytes per cycle, not 5
    ],
)
def test_dram_time_splits_over_four_channels_and_rounds_up(
    dram_bw: int, frequency: float, dram_bytes: int, cycles: int
) -> None:
    """Gemini's `NoC::get_dram_time`: ceil((bytes // 4) / (dram_bw // 1024 // 4)) / frequency, truncated."""
    model = NocModel(8, frequency=frequency, dram_bw=dram_bw)
    assert model.dram_cycles(dram_bytes) == cycles
    assert NocModel(8, frequency=frequency).dram_cycles(dram_bytes) is None


def test_noc_schedule_computes_the_step_times_when_not_given(analysis: Analysis) -> None:
    model = analysis.noc_model
    assert model is not None
    alone = noc_schedule(analysis.index, model)
    assert (alone.start, alone.end, alone.noc_time) == (
        analysis.schedules["noc"].start,
        analysis.schedules["noc"].end,
        analysis.schedules["noc"].noc_time,
    )


def test_without_a_mesh_no_step_waits_on_the_noc() -> None:
    """No xlen/ylen: nothing is routed, so every step's link bytes and NoC time are 0 and no link is named."""
    doc = timed_doc()
    del doc["xlen"], doc["ylen"]
    a = analysis_of(doc, noc_bw=7, noc_frequency=1.0)
    links = a.noc_links
    assert links.empty and set(map(str, links.dtypes)) == {"int64"}
    steps = a.noc_steps
    assert steps["link_bytes"].tolist() == [0, 0, 0] and steps["noc_time"].tolist() == [0, 0, 0]
    assert steps["link"].tolist() == [None, None, None]
    assert steps["layer_link_bytes"].tolist() == [0, 0, 0] and steps["layer_noc_time"].tolist() == [0, 0, 0]
    assert (a.schedules["noc"].end, a.schedules["noc"].makespan) == (a.schedules["dependency"].end, 2800)
    assert set(a.layers["bound"]) == {"compute"}


def test_a_mesh_without_traffic_routes_nothing() -> None:
    """No DRAM entries and no ofmap sent anywhere: an empty routed table (int64 columns) and no NoC time."""
    doc = timed_doc()
    doc["-1"] = {"in": [], "out": []}
    for core in ("0", "1", "2", "3"):
        for workload in doc[core]:
            for ofmap in workload["ofmap"]:
                ofmap["destination"] = []
    a = analysis_of(doc, noc_bw=7, noc_frequency=1.0)
    assert a.noc_links.empty and set(map(str, a.noc_links.dtypes)) == {"int64"}
    assert a.noc_steps["noc_time"].tolist() == [0, 0, 0] and a.noc_steps["link"].tolist() == [None] * 3


def test_a_step_under_one_cycle_takes_none() -> None:
    """ceil(bytes / bandwidth) / frequency truncates to 0 when that is under one cycle: no DRAM term then
    (without a DRAM bandwidth) must not add one."""
    a = analysis_of(timed_doc(), noc_bw=10**9, noc_frequency=2.0)
    assert a.noc_steps["noc_time"].tolist() == [0, 0, 0]
    assert a.noc_steps["dram_time"].isna().all()


def test_routed_rows_are_one_table_numbered_from_0(analysis: Analysis) -> None:
    """The kinds' rows are concatenated into one table with a fresh index (core, then DRAM reads, then writes)."""
    links = noc_links(analysis.index)  # called here: Analysis keeps the routed rows of a file it has seen
    assert links.index.equals(pd.RangeIndex(len(links)))
    assert list(dict.fromkeys(links["kind"])) == ["core", "dram_read", "dram_write"]


SAMPLE_TRANSFERS = {
    # Core to core: Conv_0's ofmaps 10 (core 0) and 11 (core 1) multicast to both Conv_1 cores (step 1);
    # Conv_1's ofmap 12 on core 2 feeds Relu_2 on the same core (step 2, no link).
    "core": [
        (10, 0, 0, 0, 1, 8192, 1),
        (10, 0, 0, 1, 1, 8192, 1),
        (11, 1, 0, 0, 1, 8192, 1),
        (11, 1, 0, 1, 1, 8192, 1),
        (12, 0, 1, 0, 1, 16384, 2),
    ],
    # DRAM reads: Conv_0's ifmap halves and weights (step 0), Conv_1's weights (step 1).
    "dram_read": [
        (0, 0, 0, 4352, 0),
        (1, 1, 0, 4352, 0),
        (2, 0, 0, 1024, 0),
        (3, 1, 0, 1024, 0),
        (4, 0, 1, 4608, 1),
        (5, 1, 1, 4608, 1),
    ],
    # DRAM writes in the `in` list's order: Relu_2's ofmap 14 (core 2), Conv_1's 13 (core 3).
    "dram_write": [(14, 0, 1, 16384, 2), (13, 1, 1, 16384, 1)],
}


@pytest.mark.parametrize("reference", [False, True], ids=["columns", "reference"])
def test_noc_transfers_of_the_sample(reference: bool) -> None:
    """Who sends what to whom in which step, from the transfer columns and from the objects alike."""
    with reference_core(reference):
        frames = noc_transfers(IRIndex(analysis_of(timed_doc()).loaded))
    assert {kind: list(frame.itertuples(index=False, name=None)) for kind, frame in frames.items()} == (
        SAMPLE_TRANSFERS
    )
    assert list(frames["core"].columns) == ["transfer", "src_x", "src_y", "dst_x", "dst_y", "bytes", "step"]
    assert list(frames["dram_read"].columns) == ["transfer", "dst_x", "dst_y", "bytes", "step"]
    assert list(frames["dram_write"].columns) == ["transfer", "src_x", "src_y", "bytes", "step"]
    assert {str(t) for frame in frames.values() for t in frame.dtypes} == {"int64"}


@pytest.mark.parametrize("reference", [False, True], ids=["columns", "reference"])
def test_dram_writes_leave_out_an_entry_without_its_workload(reference: bool) -> None:
    """A DRAM `in` entry naming a workload that does not exist is no traffic; the entries after it still
    are. With no entry left, the frame is still int64."""
    doc = timed_doc()
    written = doc["-1"]["in"]
    ghost = written[0] | {"workload_id": 99}
    doc["-1"]["in"] = [ghost, *written]
    with reference_core(reference):
        frames = noc_transfers(IRIndex(analysis_of(doc).loaded))
    assert list(frames["dram_write"].itertuples(index=False, name=None)) == SAMPLE_TRANSFERS["dram_write"]
    doc["-1"]["in"] = [ghost]
    with reference_core(reference):
        frames = noc_transfers(IRIndex(analysis_of(doc).loaded))
    assert frames["dram_write"].empty and set(map(str, frames["dram_write"].dtypes)) == {"int64"}
