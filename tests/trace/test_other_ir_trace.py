"""A trace of another schedule is one GIR611 finding that says so, not a line per workload."""

from __future__ import annotations

from pathlib import Path

from irtools.analysis import analyze
from irtools.trace import measure, read_trace

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures"
R50_TRACE = FIXTURES / "zebu" / "int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt"


def test_a_multicore_raw_ir_with_a_single_core_trace_gives_one_finding() -> None:
    # The raw 2x2 file numbers its cores 1, 2, 5, 6: none of the trace's 88 wkl ids is on a core 0.
    m = measure(analyze(FIXTURES / "gemini-raw" / "resnet_2x2_b1_ir.json"), read_trace(R50_TRACE))
    unknown = [f for f in m.findings if f.code == "GIR611"]
    assert len(unknown) == 1  # 88 before: one per wkl
    assert unknown[0].message.startswith(
        "the trace does not belong to this IR: 88 of the 88 wkl ids it names"
    )
    assert "(the IR has no core 0)" in unknown[0].message


def test_a_few_unknown_workloads_are_still_named_one_by_one() -> None:
    # ResNet-34's IR has wkl 0..68; the ResNet-50 trace also names 69..87: 19 of 88, a minority.
    ir = FIXTURES / "gemini" / "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json"
    m = measure(analyze(ir), read_trace(R50_TRACE))
    unknown = [f for f in m.findings if f.code == "GIR611"]
    assert [f.workload_id for f in unknown] == list(range(69, 88))
